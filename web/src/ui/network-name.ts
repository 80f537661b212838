/** A network as it spells itself (Bluesky, LinkedIn, X, TikTok): the capabilities table's name, the one source. */
import { findCapabilities } from '../../../src/domain/networks/capabilities.js';

export const networkName = (network: string): string => findCapabilities(network)?.displayName ?? network;

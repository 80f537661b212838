import type { Config } from '../config.js';
import type { Repositories } from '../db/repositories/index.js';
import type { MediaStorage } from './media/media-storage.js';
import type { OutboundFetcher } from './outbound.js';
import type { AiProvider } from './ai/ai-provider.js';
import type { InstanceSecrets } from './instance-secrets.js';
import type { SecretBox } from './secret-box.js';
import type { Timers } from './timers.js';
import type { NetworkDirectory } from './networks/channel-connections.js';

/** What every domain use case may touch: storage, configuration, the clock and its timers, and instance secrets. */
export interface DomainDeps {
  repos: Repositories;
  config: Config;
  now(): number;
  /** Timers on the same clock as now(): the worker's poll and lease renewal wait on these. */
  timers: Timers;
  secrets: InstanceSecrets;
  /** Seals secrets at rest under the instance master key. */
  secretBox: SecretBox;
  mediaStorage: MediaStorage;
  /** Reaches URLs a person supplied, through the SSRF guard. */
  fetcher: OutboundFetcher;
  ai: AiProvider;
  /** The network connectors of this instance (connect flows; the worker publishes through the same ones). */
  networks: NetworkDirectory;
}

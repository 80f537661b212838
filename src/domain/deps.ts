import type { Config } from '../config.js';
import type { Repositories } from '../db/repositories/index.js';
import type { MediaStorage } from './media/media-storage.js';
import type { OutboundFetcher } from './outbound.js';
import type { AiProvider } from './ai/ai-provider.js';
import type { InstanceSecrets } from './instance-secrets.js';
import type { SecretBox } from './secret-box.js';

/** What every domain use case may touch: storage, configuration, the clock and instance secrets. */
export interface DomainDeps {
  repos: Repositories;
  config: Config;
  now(): number;
  secrets: InstanceSecrets;
  /** Seals secrets at rest under the instance master key. */
  secretBox: SecretBox;
  mediaStorage: MediaStorage;
  /** Reaches URLs a person supplied, through the SSRF guard. */
  fetcher: OutboundFetcher;
  ai: AiProvider;
}

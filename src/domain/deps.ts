import type { Config } from '../config.js';
import type { Repositories } from '../db/repositories/index.js';
import type { MediaStorage } from '../storage/media-storage.js';
import type { AiProvider } from './ai/ai-provider.js';

/** What every domain use case may touch: storage, configuration, the clock and instance secrets. */
export interface DomainDeps {
  repos: Repositories;
  config: Config;
  now(): number;
  secrets: {
    cursorKey: string;
    /** Signs short-lived links: media upload URLs and in-app calendar links. */
    linkKey: string;
  };
  mediaStorage: MediaStorage;
  ai: AiProvider;
}

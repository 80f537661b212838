import type { Config } from '../config.js';
import type { Repositories } from '../db/repositories/index.js';

/** What every domain use case may touch: storage, configuration, the clock and instance secrets. */
export interface DomainDeps {
  repos: Repositories;
  config: Config;
  now(): number;
  secrets: {
    cursorKey: string;
    /** Signs the sign-in cookie of the OAuth authorization pages. */
    sessionKey: string;
  };
}

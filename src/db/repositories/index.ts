import type { Db } from '../connection.js';
import { AccountsRepository } from './accounts.js';
import { ApiKeysRepository } from './api-keys.js';
import { ChannelsRepository } from './channels.js';
import { IdempotencyRepository } from './idempotency.js';
import { InstanceSecretsRepository } from './instance-secrets.js';
import { OAuthRepository } from './oauth.js';
import { PostsRepository } from './posts.js';
import { RateLimitsRepository } from './rate-limits.js';

export interface Repositories {
  accounts: AccountsRepository;
  apiKeys: ApiKeysRepository;
  channels: ChannelsRepository;
  idempotency: IdempotencyRepository;
  instanceSecrets: InstanceSecretsRepository;
  oauth: OAuthRepository;
  posts: PostsRepository;
  rateLimits: RateLimitsRepository;
}

export function createRepositories(db: Db): Repositories {
  return {
    accounts: new AccountsRepository(db),
    apiKeys: new ApiKeysRepository(db),
    channels: new ChannelsRepository(db),
    idempotency: new IdempotencyRepository(db),
    instanceSecrets: new InstanceSecretsRepository(db),
    oauth: new OAuthRepository(db),
    posts: new PostsRepository(db),
    rateLimits: new RateLimitsRepository(db),
  };
}

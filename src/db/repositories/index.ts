import type { Knex } from 'knex';
import type { Db } from '../connection.js';
import { joiningUnits, unitsOfWork } from '../units-of-work.js';
import { AccountsRepository } from './accounts.js';
import { ApiKeysRepository } from './api-keys.js';
import { CalendarsRepository } from './calendars.js';
import { ChannelsRepository } from './channels.js';
import { CollectionsRepository } from './collections.js';
import { ConnectFlowsRepository } from './connect-flows.js';
import { IdempotencyRepository } from './idempotency.js';
import { InsightsRepository } from './insights.js';
import { InstanceSecretsRepository } from './instance-secrets.js';
import { LabelsRepository } from './labels.js';
import { McpTasksRepository } from './mcp-tasks.js';
import { MediaRepository } from './media.js';
import { OAuthRepository } from './oauth.js';
import { PostEventsRepository } from './post-events.js';
import { PostsRepository } from './posts.js';
import { CommentStepsRepository } from './comment-steps.js';
import { ThreadStepsRepository } from './thread-steps.js';
import { LivePostsRepository } from './live-posts.js';
import { PublishAttemptsRepository } from './publish-attempts.js';
import { PublishingRepository } from './publishing.js';
import { RateLimitsRepository } from './rate-limits.js';
import { SandboxRepository } from './sandbox.js';
import { SessionsRepository } from './sessions.js';
import { TeamPostsRepository } from './team-posts.js';
import { EventsRepository } from './events.js';
import { WebhooksRepository } from './webhooks.js';

export interface Repositories {
  accounts: AccountsRepository;
  apiKeys: ApiKeysRepository;
  channels: ChannelsRepository;
  connectFlows: ConnectFlowsRepository;
  idempotency: IdempotencyRepository;
  insights: InsightsRepository;
  instanceSecrets: InstanceSecretsRepository;
  oauth: OAuthRepository;
  posts: PostsRepository;
  rateLimits: RateLimitsRepository;
  labels: LabelsRepository;
  collections: CollectionsRepository;
  postEvents: PostEventsRepository;
  teamPosts: TeamPostsRepository;
  media: MediaRepository;
  mcpTasks: McpTasksRepository;
  calendars: CalendarsRepository;
  publishing: PublishingRepository;
  publishAttempts: PublishAttemptsRepository;
  commentSteps: CommentStepsRepository;
  threadSteps: ThreadStepsRepository;
  livePosts: LivePostsRepository;
  sandbox: SandboxRepository;
  sessions: SessionsRepository;
  events: EventsRepository;
  webhooks: WebhooksRepository;
  /**
   * The unit of work: runs `work` with repositories bound to one transaction, committed when it resolves
   * and rolled back when it throws. The domain never sees the transaction itself. These repositories, called while
   * a unit runs, join it. On SQLite, units asked for together are committed together, each in a savepoint
   * (`db/units-of-work.ts`).
   */
  inTransaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
}

export function createRepositories(over: Db): Repositories {
  // Repositories over the database itself see, inside a unit of work, the unit's transaction.
  const db = (over as Knex.Transaction).isTransaction ? over : joiningUnits(over);
  const posts = new PostsRepository(db);
  return {
    accounts: new AccountsRepository(db),
    apiKeys: new ApiKeysRepository(db),
    channels: new ChannelsRepository(db),
    connectFlows: new ConnectFlowsRepository(db),
    idempotency: new IdempotencyRepository(db),
    insights: new InsightsRepository(db),
    instanceSecrets: new InstanceSecretsRepository(db),
    oauth: new OAuthRepository(db),
    posts,
    rateLimits: new RateLimitsRepository(db),
    labels: new LabelsRepository(db),
    collections: new CollectionsRepository(db),
    postEvents: new PostEventsRepository(db),
    teamPosts: new TeamPostsRepository(db, posts),
    media: new MediaRepository(db),
    mcpTasks: new McpTasksRepository(db),
    calendars: new CalendarsRepository(db),
    publishing: new PublishingRepository(db),
    publishAttempts: new PublishAttemptsRepository(db),
    commentSteps: new CommentStepsRepository(db),
    threadSteps: new ThreadStepsRepository(db),
    livePosts: new LivePostsRepository(db),
    sandbox: new SandboxRepository(db),
    sessions: new SessionsRepository(db),
    events: new EventsRepository(db),
    webhooks: new WebhooksRepository(db),
    inTransaction: unitsOfWork(over, createRepositories),
  };
}

/**
 * The port through which the sandbox connector (publishing/networks/sandbox.ts) keeps what it "publishes" and the
 * failures it was told to simulate, owned by the domain so a connector never imports db/;
 * db/repositories/sandbox.ts implements it.
 * Contract: a post is stored once per channel and idempotency key, a repeated key answering the post already
 * stored; `publishMany` makes many publish calls in one transaction, each taking its channel's next simulated
 * failure in the order given, storing nothing for a failure that makes no post (one not in `postsAnyway`);
 * `recent` pages a channel's top-level posts newest first, `before` continuing after a post of a previous page.
 */
export type SandboxFailureMode =
  | 'rate_limited'
  | 'transient'
  | 'permanent'
  | 'auth_expired'
  | 'timeout_after_post'
  | 'slow_after_post';

export interface SandboxPost {
  id: string;
  accountId: string;
  channelId: string;
  text: string;
  media: string[];
  idempotencyKey: string | null;
  external: boolean;
  metrics: Record<string, number> | null;
  replyToId: string | null;
  createdAt: number;
}

export interface SandboxStore {
  insertOnce(post: SandboxPost): Promise<SandboxPost>;
  publishMany(
    posts: readonly SandboxPost[],
    postsAnyway: readonly SandboxFailureMode[],
  ): Promise<{ failure?: SandboxFailureMode; stored?: SandboxPost }[]>;
  findByKey(channelId: string, idempotencyKey: string): Promise<SandboxPost | undefined>;
  get(channelId: string, id: string): Promise<SandboxPost | undefined>;
  recent(channelId: string, limit: number, before?: { createdAt: number; id: string }): Promise<SandboxPost[]>;
}

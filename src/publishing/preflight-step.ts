/**
 * Rehearsing scheduled posts before their slots (the rule is domain/posts/preflight.ts):
 * - the worker takes the posts due within PREFLIGHT_MINUTES that no rehearsal took for this window, the posts at
 *   risk again every recheck interval until their slot (a cause mended meanwhile clears the risk before the slot,
 *   not after), and posts at risk that were edited; taking marks them, so with any number of workers each post is
 *   rehearsed once per window (publishing.ts claimRehearsals);
 * - a channel paused for rate gets no call, its pause being the finding; a post whose channel or connector is gone
 *   is left to the publishing step, which fails it with the reason;
 * - a rehearsal that breaks (the database, a bug) is logged and leaves the post as it was: the next window or the
 *   slot itself decides.
 */
import { connectorChannel } from '../domain/networks/channel-connections.js';
import { recordRehearsal, rehearse } from '../domain/posts/preflight.js';
import type { WorkerRuntime } from './runtime.js';

/** Takes and rehearses a batch of posts; answers how many were taken. */
export async function rehearseDue(rt: WorkerRuntime, limit: number): Promise<number> {
  const { preflightLeadMs, preflightRecheckMs } = rt.options;
  if (preflightLeadMs <= 0) return 0;
  const rehearsedAt = rt.now();
  const posts = await rt.repo.claimRehearsals(rehearsedAt, preflightLeadMs, preflightRecheckMs, limit);
  if (posts.length === 0) return 0;
  const targets = await rt.connectorsFor(posts.map((post) => post.channelId));
  await Promise.all(
    posts.map(async (post) => {
      const target = targets.get(post.channelId)!;
      if ('missing' in target) return;
      try {
        const { channel, network } = target;
        const risk = await rehearse(rt.ctx.deps, {
          post,
          channel,
          connector: network,
          target: connectorChannel(rt.ctx.deps, channel),
          checkMedia: rt.ctx.checkMedia,
        });
        await recordRehearsal(rt.ctx.deps, post, { rehearsedAt }, risk);
      } catch (error) {
        rt.ctx.logger.error('rehearsing a scheduled post failed', error);
      }
    }),
  );
  return posts.length;
}

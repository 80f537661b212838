import type { DomainDeps } from '../../domain/deps.js';
import { clearQueue, pauseQueue, reorderQueue, resumeQueue } from '../../domain/queue/queue.js';
import type { AreaTools } from './context.js';

export function queueTools(deps: DomainDeps): AreaTools {
  return {
    queue_pause: async ({ channelId }, { principal }) => ({ data: await pauseQueue(deps, principal, channelId) }),
    queue_resume: async ({ channelId }, { principal }) => ({ data: await resumeQueue(deps, principal, channelId) }),
    queue_clear: async ({ channelId, dryRun }, { principal }) => clearQueue(deps, principal, channelId, dryRun ?? true),
    queue_reorder: async ({ channelId, postId, position }, { principal }) => ({
      data: await reorderQueue(deps, principal, channelId, postId, position),
    }),
  };
}

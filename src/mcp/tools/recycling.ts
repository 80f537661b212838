import type { DomainDeps } from '../../domain/deps.js';
import { listCollections, recyclePost } from '../../domain/recycling/recycling.js';
import type { AreaTools } from './context.js';

export function recyclingTools(deps: DomainDeps): AreaTools {
  return {
    list_collections: async (_args, { principal }) => ({ data: await listCollections(deps, principal) }),
    recycle_post: async ({ postId, ...input }, { principal }) => recyclePost(deps, principal, postId, input),
  };
}

import type { SourceType } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import type { components } from '../../../generated/rest/openapi-types.js';
import { eachEntry } from '../bulk.js';
import type { Principal } from '../principal.js';
import { createPosts, type PostInput } from './create-posts.js';

type BulkEntryResult = components['schemas']['BulkEntryResult'];

/**
 * Each entry succeeds or fails on its own (not one transaction); a failure names its entry. `progress` hears how
 * many entries are done after each one (a task's checkpoint: what it throws stops the remaining entries).
 */
export async function bulkCreatePosts(
  deps: DomainDeps,
  principal: Principal,
  entries: PostInput[],
  source: SourceType,
  progress?: (message: string) => Promise<void>,
) {
  return eachEntry<PostInput, BulkEntryResult>(
    entries,
    async (entry, index) => ({
      index,
      data: (await createPosts(deps, principal, entry, source)) as BulkEntryResult['data'],
    }),
    (_entry, index, error) => ({
      index,
      ok: false,
      error: {
        ...error,
        message: `posts[${index}]: ${error.message}`,
        ...(error.details
          ? { details: error.details.map((d) => ({ path: `posts[${index}].${d.path}`, message: d.message })) }
          : {}),
      },
    }),
    progress &&
      ((done, total, failed) =>
        progress(`${done} of ${total} entries done (${done - failed} created, ${failed} refused)`)),
  );
}

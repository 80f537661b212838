import type { SourceType } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { HeraldError } from '../errors.js';
import type { Principal } from '../principal.js';
import { createPosts, type PostInput } from './create-posts.js';
import type { PostView } from './post-view.js';

export type BulkEntryResult =
  | { index: number; ok: true; data: PostView[] }
  | { index: number; ok: false; error: { status: false; code: string; message: string; details?: { path: string; message: string }[] } };

/** Each entry succeeds or fails on its own (not one transaction); a failure names its entry. */
export async function bulkCreatePosts(deps: DomainDeps, principal: Principal, entries: PostInput[], source: SourceType) {
  const results: BulkEntryResult[] = [];
  for (const [index, entry] of entries.entries()) {
    try {
      results.push({ index, ok: true, data: await createPosts(deps, principal, entry, source) });
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      results.push({
        index,
        ok: false,
        error: {
          status: false,
          code: error.code,
          message: `posts[${index}]: ${error.message}`,
          ...(error.details ? { details: error.details.map((d) => ({ path: `posts[${index}].${d.path}`, message: d.message })) } : {}),
        },
      });
    }
  }
  const succeeded = results.filter((r) => r.ok).length;
  return { results, summary: { succeeded, failed: results.length - succeeded } };
}

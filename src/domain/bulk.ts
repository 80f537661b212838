/**
 * The per-item loop of every bulk action (bulk create, bulk delete, bulk label): items run one after
 * another, each succeeds or fails on its own (SPEC: partial success; not one transaction), a refusal a
 * caller can act on is reported in that item's entry in the REST error shape, and a bug still fails the
 * whole call. The summary counts both. A caller may follow along: `progress` is awaited after each item, and
 * what it throws stops the loop there (a cancelled task).
 */
import type { components } from '../../generated/rest/openapi-types.js';
import { HeraldError } from './errors.js';

type ErrorBody = components['schemas']['Error'];

export interface BulkOutcome<R> {
  results: R[];
  summary: { succeeded: number; failed: number };
}

export async function eachEntry<T, R extends { ok: boolean }>(
  items: readonly T[],
  run: (item: T, index: number) => Promise<Omit<R, 'ok' | 'error'>>,
  failed: (item: T, index: number, error: ErrorBody) => R,
  progress?: (done: number, total: number, failed: number) => Promise<void>,
): Promise<BulkOutcome<R>> {
  const results: R[] = [];
  for (const [index, item] of items.entries()) {
    try {
      results.push({ ...(await run(item, index)), ok: true } as unknown as R);
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      results.push(
        failed(item, index, {
          status: false,
          code: error.code,
          message: error.message,
          ...(error.details?.length ? { details: error.details } : {}),
        }),
      );
    }
    await progress?.(results.length, items.length, results.filter((r) => !r.ok).length);
  }
  const succeeded = results.filter((r) => r.ok).length;
  return { results, summary: { succeeded, failed: results.length - succeeded } };
}

/** The result of a bulk action on post ids (bulk delete, bulk label). */
export type BulkIdResult = components['schemas']['BulkIdResult'];

export function eachPostId(
  postIds: readonly string[],
  run: (id: string) => Promise<void>,
): Promise<BulkOutcome<BulkIdResult>> {
  return eachEntry<string, BulkIdResult>(
    postIds,
    async (id) => {
      await run(id);
      return { id };
    },
    (id, _index, error) => ({ id, ok: false, error: { status: false, code: error.code, message: error.message } }),
  );
}

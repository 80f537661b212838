/**
 * Cursor paging as an async iterator: every listing that answers `{ data, paging: { nextCursor, hasMore } }` is read
 * page by page, each next page asked for with the cursor of the one before, and only when the loop wants more.
 */
import type { paths } from '../../generated/rest/openapi-types.js';
import { unwrap, type HeraldClient } from './rest.js';

interface PageBody {
  data: unknown[];
  paging: { nextCursor: string | null; hasMore: boolean };
}

type Listing<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;

/** The REST paths whose GET answers a page. */
export type PagedPath = { [P in keyof paths]: Listing<P> extends PageBody ? P : never }[keyof paths];

/** One item of a paged listing: a Post of /posts, an Event of /events... */
export type PageItem<P extends PagedPath> = Listing<P> extends { data: (infer I)[] } ? I : never;

type Parameters<P extends PagedPath> = paths[P] extends { get: { parameters: infer Q } } ? Q : never;
type Query<P extends PagedPath> = Parameters<P> extends { query?: infer Q } ? Omit<NonNullable<Q>, 'cursor'> : never;

/** The GET's parameters, but the cursor, which the iterator keeps. */
export type PageRequest<P extends PagedPath> = {
  params?: Omit<Parameters<P>, 'query' | 'header' | 'cookie'> & { query?: Query<P> };
};

/**
 * `for await (const post of paginate(client, '/posts', { params: { query: { limit: 50 } } }))`: every item of
 * the listing, in its order. A refusal rejects with the SDK's typed error.
 */
export async function* paginate<P extends PagedPath>(
  client: HeraldClient,
  path: P,
  request: PageRequest<P> = {},
): AsyncGenerator<PageItem<P>, void, undefined> {
  const get = client.GET as unknown as (
    path: string,
    init: unknown,
  ) => Promise<{ data?: PageBody; error?: unknown; response: Response }>;
  let cursor: string | undefined;
  for (;;) {
    const params = { ...request.params, query: { ...request.params?.query, ...(cursor ? { cursor } : {}) } };
    const page = await unwrap(get(path, { params }));
    yield* page.data as PageItem<P>[];
    if (!page.paging.hasMore || !page.paging.nextCursor) return;
    cursor = page.paging.nextCursor;
  }
}

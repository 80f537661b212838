import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Bluesky's AppView for two calls, app.bsky.feed.getAuthorFeed and app.bsky.actor.getProfile, as their lexicons
 * describe them: the PDS proxies the calls here (the real bsky.social does the same to api.bsky.app). The feed is
 * read from the PDS's own repository (com.atproto.repo.listRecords), newest first, with the like, repost, reply and
 * quote counts a test sets, the way the AppView counts them from the network; a profile (profileViewDetailed) has
 * the followersCount a test sets for the actor.
 */
export interface FakeAppView {
  url: string;
  did: string;
  /** The PDS to read records from, set once it runs (it must know this AppView's URL before it starts). */
  pdsUrl: string;
  counts: Map<string, { likeCount?: number; repostCount?: number; replyCount?: number; quoteCount?: number }>;
  /** Followers by actor DID; an actor not set has none. */
  followers: Map<string, number>;
  close(): Promise<void>;
}

export async function startFakeAppView(): Promise<FakeAppView> {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://appview.invalid');
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/xrpc/app.bsky.actor.getProfile') {
      const did = url.searchParams.get('actor') ?? '';
      if (!did.startsWith('did:')) return send(400, { error: 'InvalidRequest', message: 'Profile not found' });
      return send(200, {
        did,
        handle: 'handle.invalid',
        followersCount: fake.followers.get(did) ?? 0,
        followsCount: 0,
        postsCount: 0,
      });
    }
    if (url.pathname !== '/xrpc/app.bsky.feed.getAuthorFeed')
      return send(501, { error: 'MethodNotImplemented', message: 'Method Not Implemented' });
    const actor = url.searchParams.get('actor') ?? '';
    const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 50));
    const query = new URLSearchParams({
      repo: actor,
      collection: 'app.bsky.feed.post',
      limit: String(limit),
      ...(url.searchParams.get('cursor') ? { cursor: url.searchParams.get('cursor')! } : {}),
    });
    const listed = await fetch(`${fake.pdsUrl}/xrpc/com.atproto.repo.listRecords?${query}`);
    if (!listed.ok) return send(400, { error: 'InvalidRequest', message: 'Profile not found' });
    const { records, cursor } = await listed.json();
    const noReplies = url.searchParams.get('filter') === 'posts_no_replies';
    const feed = records
      .filter((r: any) => !(noReplies && r.value.reply))
      .map((r: any) => ({
        post: {
          uri: r.uri,
          cid: r.cid,
          author: { did: actor, handle: 'handle.invalid' },
          record: r.value,
          indexedAt: r.value.createdAt,
          likeCount: 0,
          repostCount: 0,
          replyCount: 0,
          quoteCount: 0,
          ...fake.counts.get(r.uri),
        },
      }));
    send(200, { feed, ...(cursor ? { cursor } : {}) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeAppView = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    did: 'did:web:appview.test',
    pdsUrl: '',
    counts: new Map(),
    followers: new Map(),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return fake;
}

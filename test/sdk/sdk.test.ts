import assert from 'node:assert/strict';
import {
  createHeraldClient,
  HeraldNotFoundError,
  HeraldRateLimitError,
  HeraldValidationError,
  paginate,
  unwrap,
} from '../../sdk/src/index.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

/** A fetch that records each request (method, path, Idempotency-Key) on its way to the real server. */
function recordingFetch(
  seen: { method: string; path: string; key: string | null }[],
  intercept?: (request: Request, n: number) => Promise<Response | undefined>,
) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    seen.push({
      method: request.method,
      path: new URL(request.url).pathname,
      key: request.headers.get('Idempotency-Key'),
    });
    return (await intercept?.(request.clone(), seen.length)) ?? fetch(request);
  };
}

describe('the SDK', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald({
      rateLimits: {
        restReadsPerMinute: 1000,
        restWritesPerMinute: 1000,
        accountPerHour: 10000,
        mcpPerTokenPerMinute: 60,
      },
    });
    a = await t.seedAccount();
  });
  after(() => t.close());

  it('creates and lists posts with types from the spec', async () => {
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey });
    const channels = await herald.GET('/channels');
    assert.equal(channels.data?.data.length, 2);
    const created = await herald.POST('/posts', {
      body: { channelIds: [channels.data!.data[0].id], text: 'from the SDK' },
    });
    assert.equal(created.response.status, 201);
    const listed = await herald.GET('/posts', { params: { query: { limit: 10 } } });
    assert.equal(listed.data?.data[0].text, 'from the SDK');
  });

  it("returns the error body on failure, and unwrap throws it as its family's class", async () => {
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey });
    const res = await herald.GET('/posts/scheduled', { params: { query: { livePosts: true } } });
    assert.equal(res.response.status, 400);
    assert.equal(res.error?.status, false);
    assert.match(res.error!.message, /livePosts/);
    await assert.rejects(
      unwrap(herald.GET('/posts/scheduled', { params: { query: { livePosts: true } } })),
      (e: unknown) =>
        e instanceof HeraldValidationError &&
        e.status === 400 &&
        e.code === 'invalid_request' &&
        /livePosts/.test(e.message),
    );
    await assert.rejects(
      unwrap(herald.GET('/posts/{postId}', { params: { path: { postId: 'pst_nothing' } } })),
      (e: unknown) => e instanceof HeraldNotFoundError && e.status === 404 && e.code === 'not_found',
    );
  });

  it('pages through a listing with an async iterator, one page asked for at a time', async () => {
    const seen: { method: string; path: string; key: string | null }[] = [];
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey, fetch: recordingFetch(seen) });
    for (let i = 0; i < 5; i += 1)
      await unwrap(herald.POST('/posts', { body: { channelIds: [a.channelIds[1]], text: `paged ${i}` } }));
    seen.length = 0;
    const texts: string[] = [];
    for await (const post of paginate(herald, '/posts', {
      params: { query: { limit: 2, channelIds: [a.channelIds[1]] } },
    })) {
      texts.push(post.text);
    }
    assert.deepEqual(texts.sort(), ['paged 0', 'paged 1', 'paged 2', 'paged 3', 'paged 4']);
    assert.equal(seen.length, 3, 'five posts in pages of two');
    seen.length = 0;
    for await (const post of paginate(herald, '/posts', { params: { query: { limit: 2 } } })) if (post) break;
    assert.equal(seen.length, 1, 'a loop that stops asks for no further page');
  });

  it('sends an Idempotency-Key with every write, its own per call, and keeps one the caller set', async () => {
    const seen: { method: string; path: string; key: string | null }[] = [];
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey, fetch: recordingFetch(seen) });
    await unwrap(herald.POST('/posts', { body: { channelIds: [a.channelIds[0]], text: 'one' } }));
    await unwrap(herald.POST('/posts', { body: { channelIds: [a.channelIds[0]], text: 'two' } }));
    await unwrap(herald.GET('/channels'));
    await unwrap(
      herald.POST('/posts', {
        body: { channelIds: [a.channelIds[0]], text: 'three' },
        headers: { 'Idempotency-Key': 'mine-1' },
      }),
    );
    const [one, two, read, mine] = seen.map((s) => s.key);
    assert.match(one!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(two!, /^[0-9a-f-]{36}$/);
    assert.notEqual(one, two);
    assert.equal(read, null, 'a read carries none');
    assert.equal(mine, 'mine-1');
    const without: typeof seen = [];
    const plain = createHeraldClient({
      baseUrl: t.url,
      token: a.apiKey,
      idempotencyKeys: false,
      fetch: recordingFetch(without),
    });
    await unwrap(plain.POST('/posts', { body: { channelIds: [a.channelIds[0]], text: 'four' } }));
    assert.equal(without[0].key, null);
  });

  it(
    "tries a write again after the wait a 503's Retry-After names, " + 'with the same key, so it makes one post',
    async () => {
      const seen: { method: string; path: string; key: string | null }[] = [];
      // The first try reaches Herald and makes the post, but its answer is lost and a 503 comes back instead.
      const herald = createHeraldClient({
        baseUrl: t.url,
        token: a.apiKey,
        fetch: recordingFetch(seen, async (request, n) => {
          if (n !== 1) return undefined;
          await fetch(request);
          return new Response(JSON.stringify({ status: false, code: 'service_unavailable', message: 'busy' }), {
            status: 503,
            headers: { 'Retry-After': '1' },
          });
        }),
      });
      const started = Date.now();
      const created = await unwrap(
        herald.POST('/posts', { body: { channelIds: [a.channelIds[0]], text: 'once only' } }),
      );
      assert.ok(Date.now() - started >= 1000, 'it waited the second Retry-After named');
      assert.equal(seen.length, 2);
      assert.equal(seen[0].key, seen[1].key);
      const posts = await unwrap(herald.GET('/posts', { params: { query: { limit: 100 } } }));
      assert.deepEqual(
        posts.data.filter((p) => p.text === 'once only').map((p) => p.id),
        created.data.map((p) => p.id),
      );
      assert.equal(created.data.length, 1);
    },
  );

  it(
    'answers a 429 whose Retry-After is beyond its patience at once, ' + 'as a HeraldRateLimitError with the wait',
    async () => {
      await t.close();
      t = await startTestHerald({
        rateLimits: { restReadsPerMinute: 1, restWritesPerMinute: 1, accountPerHour: 1000, mcpPerTokenPerMinute: 60 },
      });
      a = await t.seedAccount();
      const seen: { method: string; path: string; key: string | null }[] = [];
      const herald = createHeraldClient({
        baseUrl: t.url,
        token: a.apiKey,
        maxRetryDelaySeconds: 5,
        fetch: recordingFetch(seen),
      });
      await unwrap(herald.GET('/channels'));
      const started = Date.now();
      await assert.rejects(
        unwrap(herald.GET('/channels')),
        (e: unknown) =>
          e instanceof HeraldRateLimitError &&
          e.status === 429 &&
          e.code === 'rate_limited' &&
          e.retryAfterSeconds! > 5,
      );
      assert.ok(Date.now() - started < 1000);
      assert.equal(seen.length, 2, "no retry for a minute's wait");
    },
  );

  it('is typed by the spec', () => {
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey });
    // These lines only have to compile wrongly: tsc (make test's typecheck) fails if the types loosen.
    const misuse = () => {
      // @ts-expect-error channelIds is required on create
      void herald.POST('/posts', { body: { text: 'no channels' } });
      // @ts-expect-error unknown route
      void herald.GET('/nope');
      // @ts-expect-error limit is a number
      void herald.GET('/posts', { params: { query: { limit: 'ten' } } });
      // @ts-expect-error /channels answers no page
      void paginate(herald, '/channels');
      // @ts-expect-error the iterator keeps the cursor
      void paginate(herald, '/posts', { params: { query: { cursor: 'x' } } });
    };
    assert.equal(typeof misuse, 'function');
  });
});

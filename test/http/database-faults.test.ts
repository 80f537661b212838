/**
 * When the database, not the request, fails: a Postgres that stops under a running Herald answers 503 with
 * Retry-After, said once in the log, and Herald recovers by itself; a full SQLite database answers 507 and keeps its
 * file intact; DATA_DIR low on space is a warning in /healthz and the log before that.
 */
import assert from 'node:assert/strict';
import type { Logger } from '../../src/logger.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { postgresBin, startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';
import { eventually } from '../publishing/support.js';
import { databaseFault, DatabaseUnavailableError, StorageFullError } from '../../src/domain/database-health.js';

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const line = (level: string) => (message: string, extra?: unknown) => {
    lines.push(`${level} ${message}${extra instanceof Error ? ` ${extra.message} ${(extra as any).code}` : ''}`);
  };
  return { logger: { info: line('info'), warn: line('warn'), error: line('error') }, lines };
}

describe('database faults', function () {
  this.timeout(120_000);
  let t: TestHerald | undefined;
  let pg: OwnPostgres | undefined;
  afterEach(async () => {
    await t?.close();
    pg?.remove();
    t = undefined;
    pg = undefined;
  });

  const createPost = (account: SeededAccount, text: string) =>
    t!.api('POST', '/v1/rest/posts', { token: account.apiKey, body: { channelIds: [account.channelIds[0]], text } });

  it(
    'a Postgres that stops answers 503 with Retry-After, ' +
      'said once in the log, and Herald recovers when it is back',
    async function () {
      const bin = postgresBin();
      // Only where Postgres is not installed at all (.ci/run installs it): this test needs a server it may stop.
      if (!bin) this.skip();
      pg = await startOwnPostgres(bin!);
      const { logger, lines } = recordingLogger();
      // The worker polls every 50 ms, so the outage below spans many polls: none may be logged as an error.
      t = await startTestHerald({ databaseUrl: pg.url, worker: true, workerPollMs: 50 }, logger);
      const account = await t.seedAccount({ channels: 1 });
      assert.equal((await createPost(account, 'before')).status, 201);

      pg.stop();
      for (let i = 0; i < 5; i++) {
        const res = await createPost(account, `during ${i}`);
        assert.equal(res.status, 503, JSON.stringify(res.body));
        assert.equal(res.headers.get('retry-after'), '5');
        assert.equal(res.body.code, 'service_unavailable');
        assert.match(res.body.message, /cannot reach its database right now; nothing was changed\. Retry in 5 seconds/);
      }
      const mcp = await t.api('POST', '/mcp', {
        token: account.apiKey,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      assert.equal(mcp.status, 503, JSON.stringify(mcp.body));
      assert.equal(mcp.headers.get('retry-after'), '5');
      assert.match(mcp.body.error.message, /cannot reach its database/);

      await new Promise((resolve) => setTimeout(resolve, 1_000));
      pg.start();
      await eventually(
        async () => ((await createPost(account, 'after')).status === 201 ? true : undefined),
        'a create to succeed again',
        30_000,
      );
      await eventually(
        async () => (lines.some((l) => l.startsWith('info Herald reaches its database again')) ? true : undefined),
        'the end of the outage to be logged',
      );
      const outage = lines.filter((l) => /database/i.test(l));
      assert.equal(
        outage.filter((l) => l.startsWith('warn Herald cannot reach its database')).length,
        1,
        lines.join('\n'),
      );
      assert.deepEqual(
        lines.filter((l) => l.startsWith('error')),
        [],
        'no request was logged as a bug',
      );
    },
  );

  it(
    'a full SQLite database answers 507, said once in the log; ' +
      'the file stays intact and takes writes once space returns',
    async () => {
      const { logger, lines } = recordingLogger();
      // SQLite whatever the suite's database: the fault is SQLite's (Postgres's own disk_full maps the same way).
      t = await startTestHerald({ databaseUrl: undefined }, logger);
      const account = await t.seedAccount({ channels: 1 });
      const db = t.herald.db;
      const [{ page_count: pages }] = await db.raw('PRAGMA page_count');
      // The database may grow by a handful of pages, then it is full (as a disk would be).
      await db.raw(`PRAGMA max_page_count = ${Number(pages) + 8}`);
      let created = 0;
      let full: { status: number; body: any } | undefined;
      for (let i = 0; i < 500 && !full; i++) {
        const res = await createPost(account, `filler ${i} ${'x'.repeat(2000)}`);
        if (res.status === 201) created++;
        else full = res;
      }
      assert.ok(full, 'the database filled up');
      assert.equal(full.status, 507, JSON.stringify(full.body) + lines.join('\n'));
      assert.equal(full.body.code, 'storage_full');
      assert.match(full.body.message, /^Herald's storage is full; nothing was changed/);
      for (let i = 0; i < 3; i++)
        assert.equal((await createPost(account, `more ${i} ${'x'.repeat(2000)}`)).status, 507);
      assert.equal(lines.filter((l) => l.startsWith("warn Herald's storage is full")).length, 1, lines.join('\n'));
      assert.deepEqual(
        lines.filter((l) => l.startsWith('error')),
        [],
        'no request was logged as a bug',
      );

      await db.raw('PRAGMA max_page_count = 1073741823');
      assert.equal((await createPost(account, 'space is back')).status, 201);
      await eventually(
        async () => (lines.some((l) => l.startsWith("info Herald's storage takes writes again")) ? true : undefined),
        'the end to be logged',
      );
      assert.deepEqual(await db.raw('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
      const listed = await t.api('GET', '/v1/rest/posts?limit=100', { token: account.apiKey });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const [{ n }] = await db('posts').where({ account_id: account.accountId }).count({ n: '*' });
      assert.equal(Number(n), created + 1, 'every post answered 201 is there, and no other');
    },
  );

  it('/healthz warns, and the log once, when DATA_DIR has less free space than STORAGE_LOW_MB', async () => {
    const { logger, lines } = recordingLogger();
    t = await startTestHerald({ storageLowBytes: Number.MAX_SAFE_INTEGER }, logger);
    for (let i = 0; i < 2; i++) {
      const res: { status: number; body: any } = await t.api('GET', '/healthz');
      assert.equal(res.status, 200);
      assert.equal(res.body.status, true);
      assert.match(
        res.body.warning,
        /^DATA_DIR has \d+ MB free, under STORAGE_LOW_MB \(\d+ MB\): free space before writes fail with 507\.$/,
      );
    }
    await eventually(
      async () => (lines.some((l) => l.startsWith('warn DATA_DIR has')) ? true : undefined),
      'the warning in the log',
    );
    assert.equal(lines.filter((l) => l.startsWith('warn DATA_DIR has')).length, 1);
    await t.close();

    t = await startTestHerald({ storageLowBytes: 0 });
    assert.deepEqual((await t.api('GET', '/healthz')).body, { status: true });
  });

  it("takes only the database's own faults for an outage: an outbound call refused is not one", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    assert.ok(databaseFault(refused) instanceof DatabaseUnavailableError, "the pool's connect refused");
    assert.ok(
      databaseFault(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    );
    assert.equal(databaseFault(new TypeError('fetch failed', { cause: refused })), undefined, 'a fetch refused');
    assert.ok(
      databaseFault(new Error('BEGIN; - Connection terminated unexpectedly')) instanceof DatabaseUnavailableError,
      'a transaction begun on a connection that died, as Knex words it',
    );
    assert.equal(databaseFault(new Error('the text says Connection terminated')), undefined, 'words in a message');
    assert.ok(
      databaseFault(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })) instanceof
        StorageFullError,
    );
    assert.equal(databaseFault(new Error('something else')), undefined);
  });
});

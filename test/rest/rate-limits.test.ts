import assert from 'node:assert/strict';
import type { RateLimitConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startHerald } from '../../src/server.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

const SMALL: RateLimitConfig = {
  restReadsPerMinute: 4,
  restWritesPerMinute: 2,
  accountPerHour: 9,
  mcpPerTokenPerMinute: 60,
};
const SPEC_DEFAULTS: RateLimitConfig = {
  restReadsPerMinute: 60,
  restWritesPerMinute: 15,
  accountPerHour: 1000,
  mcpPerTokenPerMinute: 60,
};

/** Most requests admitted in any half-open span of `windowMs`. */
function busiestWindow(admittedAt: number[], windowMs: number): number {
  let most = 0;
  for (const [i, start] of admittedAt.entries())
    most = Math.max(most, admittedAt.slice(i).filter((at) => at < start + windowMs).length);
  return most;
}

describe('REST rate limits', () => {
  let t: TestHerald;
  let a: SeededAccount;
  // Every test runs on this clock (deps.now), so windows are checked to the millisecond and never flake.
  const START = Date.UTC(2030, 0, 1, 12, 0, 30);
  let now: number;
  const at = (seconds: number) => {
    now = START + seconds * 1000;
  };
  const start = async (limits: RateLimitConfig) => {
    t = await startTestHerald({ rateLimits: limits });
    t.deps.now = () => now;
    a = await t.seedAccount();
  };
  beforeEach(() => at(0));
  afterEach(() => t.close());

  const read = (token = a.apiKey) => t.api('GET', '/v1/rest/posts', { token });
  const write = (token = a.apiKey, path = '/v1/rest/posts') =>
    t.api('POST', path, { token, body: { channelIds: [a.channelIds[0]], text: 'x', saveAsDraft: true } });
  const headers = (res: { headers: Headers }, ...names: string[]) =>
    Object.fromEntries(names.map((name) => [name, res.headers.get(name)]));

  describe('with small budgets', () => {
    beforeEach(() => start(SMALL));

    it(
      'reports the minute and account budgets in the headers, ' + 'resets in seconds until the budget is full',
      async () => {
        const first = await read();
        assert.deepEqual(headers(first, 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'), {
          'ratelimit-limit': '4',
          'ratelimit-remaining': '3',
          'ratelimit-reset': '60',
        });
        assert.deepEqual(
          headers(first, 'x-account-ratelimit-limit', 'x-account-ratelimit-remaining', 'x-account-ratelimit-reset'),
          {
            'x-account-ratelimit-limit': '9',
            'x-account-ratelimit-remaining': '8',
            'x-account-ratelimit-reset': '3600',
          },
        );
        at(45);
        const later = await read();
        assert.deepEqual(headers(later, 'ratelimit-remaining', 'ratelimit-reset', 'x-account-ratelimit-remaining'), {
          'ratelimit-remaining': '2',
          'ratelimit-reset': '60',
          'x-account-ratelimit-remaining': '7',
        });
        at(61);
        assert.equal((await read()).headers.get('ratelimit-remaining'), '2', 'the first read has left the minute');
      },
    );

    it(
      'answers 429 with Retry-After, the seconds until a request passes again, ' +
        'and {status:false, message} giving them',
      async () => {
        for (const second of [0, 10, 20, 30]) {
          at(second);
          assert.equal((await read()).status, 200);
        }
        at(45);
        const res = await read();
        assert.equal(res.status, 429);
        assert.deepEqual(
          headers(
            res,
            'retry-after',
            'ratelimit-remaining',
            'ratelimit-reset',
            'x-account-ratelimit-remaining',
            'x-account-ratelimit-reset',
          ),
          {
            'retry-after': '15',
            'ratelimit-remaining': '0',
            'ratelimit-reset': '45',
            'x-account-ratelimit-remaining': '5',
            'x-account-ratelimit-reset': '3585',
          },
        );
        assert.equal(res.body.status, false);
        assert.ok(res.body.message.includes('15 seconds'), res.body.message);
        now = START + 59_999;
        assert.equal((await read()).status, 429, 'not a millisecond early');
        at(60);
        assert.equal((await read()).status, 200, 'on time');
      },
    );

    it('keeps read and write minute budgets separate', async () => {
      for (let i = 0; i < 2; i++) assert.equal((await write()).status, 201);
      assert.equal((await write()).status, 429);
      const res = await read();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), '4');
    });

    it('counts per account: another key of the same account gets no separate allowance', async () => {
      for (let i = 0; i < 2; i++) await write();
      assert.equal((await write(a.basicKey)).status, 429);
      const other = await t.seedAccount();
      assert.equal(
        (
          await t.api('POST', '/v1/rest/posts', {
            token: other.apiKey,
            body: { channelIds: [other.channelIds[0]], text: 'x', saveAsDraft: true },
          })
        ).status,
        201,
      );
    });

    it('puts the legacy POST /post on the write limiter', async () => {
      await write();
      await write(a.apiKey, '/v1/rest/post');
      const res = await write(a.apiKey, '/v1/rest/post');
      assert.equal(res.status, 429);
      assert.match(res.body.message, /write/);
    });

    it('leaves GET /profile outside the limiter', async () => {
      for (let i = 0; i < 12; i++) {
        const res = await t.api('GET', '/v1/rest/profile', { token: a.apiKey });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('ratelimit-limit'), null);
      }
      assert.equal((await read()).headers.get('ratelimit-remaining'), '3');
    });

    it(
      'spends the hourly account budget across reads and writes; ' + 'the hour refusing spends nothing of the minute',
      async () => {
        for (let i = 0; i < 4; i++) await read();
        for (let i = 0; i < 2; i++) await write();
        at(61);
        for (let i = 0; i < 3; i++) assert.equal((await read()).status, 200);
        const res = await read();
        assert.equal(res.status, 429);
        assert.match(res.body.message, /account hourly budget/);
        assert.deepEqual(headers(res, 'retry-after', 'x-account-ratelimit-remaining', 'ratelimit-remaining'), {
          'retry-after': '3539',
          'x-account-ratelimit-remaining': '0',
          'ratelimit-remaining': '1',
        });
        at(3600);
        assert.equal((await read()).status, 200, 'an hour after the first request, its slot is free again');
      },
    );

    it('does not charge the hour for requests the minute budget refuses', async () => {
      for (let i = 0; i < 4; i++) await read();
      for (let i = 0; i < 10; i++) assert.equal((await read()).status, 429);
      const res = await write();
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('x-account-ratelimit-remaining'), '4');
    });

    it('shares the budget exactly between two Herald instances on one database', async () => {
      const second = await startHerald({ ...t.config, port: 0 }, createLogger({ quiet: true }));
      second.deps.now = () => now;
      const readAt = async (url: string) => {
        const res = await fetch(`${url}/v1/rest/posts`, { headers: { authorization: `Bearer ${a.apiKey}` } });
        await res.arrayBuffer();
        return { status: res.status, remaining: res.headers.get('ratelimit-remaining') };
      };
      try {
        assert.deepEqual(await readAt(t.url), { status: 200, remaining: '3' });
        assert.deepEqual(await readAt(second.url), { status: 200, remaining: '2' });
        at(30);
        // Both at once, from both instances: exactly the two reads left pass.
        const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => readAt(i % 2 ? second.url : t.url)));
        assert.equal(burst.filter((r) => r.status === 200).length, 2, JSON.stringify(burst));
        at(60);
        assert.deepEqual(
          await readAt(second.url),
          { status: 200, remaining: '1' },
          'the first two reads have left the minute; the burst has not',
        );
        assert.equal((await readAt(t.url)).status, 200);
        assert.equal((await readAt(second.url)).status, 429);
      } finally {
        await second.close();
      }
    });
    it(
      'charges the minute and the hour in one transaction, ' +
        'by the same statements on both databases (SQLite: none through Knex)',
      async () => {
        const statements: string[] = [];
        const count = (query: { sql: string }) => statements.push(query.sql);
        t.herald.db.on('query', count);
        try {
          assert.equal((await read()).status, 200);
        } finally {
          t.herald.db.off('query', count);
        }
        const charging = statements.filter((sql) => /rate_limit|herald_charge_budgets/.test(sql));
        if (TEST_DB === 'postgres') {
          assert.ok(
            charging.every((sql) => /^(INSERT INTO|DELETE FROM|UPDATE|SELECT min\(at\)) rate_limit_/.test(sql)),
            charging.join('\n---\n'),
          );
          const first = statements.indexOf(charging[0]);
          const last = statements.lastIndexOf(charging[charging.length - 1]);
          assert.match(statements[first - 1], /^BEGIN/i, statements.join('\n---\n'));
          assert.match(statements[last + 1], /^COMMIT/i, statements.join('\n---\n'));
          assert.deepEqual(
            statements.slice(first, last + 1).filter((sql) => !charging.includes(sql)),
            [],
            'nothing else in the transaction',
          );
          const functions = await t.herald.db.raw(
            "SELECT count(*) AS n FROM pg_proc WHERE proname = 'herald_charge_budgets'",
          );
          assert.equal(Number(functions.rows[0].n), 0, 'no copy of the algorithm in the database');
        } else {
          assert.deepEqual(charging, []);
        }
      },
    );

    it(
      'keeps only the admissions still in their window, ' + 'so a budget costs the same however long it has run',
      async () => {
        const held = async () => Number((await t.herald.db('rate_limit_admissions').sum({ n: 'n' }).first())!.n);
        for (let i = 0; i < 3; i++) await read();
        assert.equal(await held(), 6, 'three reads, each in the minute and the hour');
        at(61);
        await read();
        assert.equal(await held(), 5, "the minute's three have gone; the hour keeps four; the minute has the new one");
        const budgets = await t.herald.db('rate_limit_budgets').orderBy('bucket').select('bucket', 'kept');
        assert.deepEqual(
          budgets.map((b) => Number(b.kept)),
          [4, 1],
          JSON.stringify(budgets),
        );
      },
    );

    it('starts a budget afresh when its limit is changed', async () => {
      for (let i = 0; i < 4; i++) await read();
      assert.equal((await read()).status, 429);
      const raised = await startHerald(
        { ...t.config, port: 0, rateLimits: { ...SMALL, restReadsPerMinute: 5 } },
        createLogger({ quiet: true }),
      );
      raised.deps.now = () => now;
      try {
        const res = await fetch(`${raised.url}/v1/rest/posts`, { headers: { authorization: `Bearer ${a.apiKey}` } });
        await res.arrayBuffer();
        assert.deepEqual(headers(res, 'ratelimit-limit', 'ratelimit-remaining'), {
          'ratelimit-limit': '5',
          'ratelimit-remaining': '4',
        });
      } finally {
        await raised.close();
      }
    });

    it('refills a budget whose admissions lie more than a window ahead, as after a clock that went back', async () => {
      at(3600);
      for (let i = 0; i < 4; i++) await read();
      assert.equal((await read()).status, 429);
      at(60);
      for (let i = 0; i < 4; i++) assert.equal((await read()).status, 200, `read ${i} after the clock went back`);
      assert.equal((await read()).status, 429);
    });
  });

  describe('charges made at once (the store itself)', () => {
    beforeEach(() => start(SMALL));
    const budget = (bucket: string, limit: number, windowMs = 60_000) => ({ bucket, limit, windowMs });

    it('decides each exactly: of 12 charges made together on a budget of 5, five pass, counting 1 to 5', async () => {
      const charges = Array.from({ length: 12 }, () =>
        t.herald.deps.repos.rateLimits.charge(now, [budget('together', 5)]),
      );
      const results = await Promise.all(charges);
      const passed = results.filter((r) => r.admitted);
      assert.equal(passed.length, 5);
      assert.deepEqual(passed.map((r) => r.charged[0].count).sort(), [1, 2, 3, 4, 5]);
      for (const refused of results.filter((r) => !r.admitted)) assert.equal(refused.charged[0].count, 5);
    });

    it('takes back only the writes of a charge that fails; the charges made with it stand', async () => {
      const store = t.herald.deps.repos.rateLimits;
      const held = async (bucket: string) =>
        Number((await t.herald.db('rate_limit_admissions').where({ bucket }).sum({ n: 'n' }).first())?.n ?? 0);
      // A window of NaN makes the admission's expiry NULL, which
      // the budget's row refuses (after the admission was written).
      const [first, failed, last] = await Promise.allSettled([
        store.charge(now, [budget('before', 5)]),
        store.charge(now, [budget('broken', 5, Number.NaN)]),
        store.charge(now, [budget('after', 5)]),
      ]);
      assert.equal(failed.status, 'rejected');
      assert.ok(first.status === 'fulfilled' && first.value.admitted && first.value.charged[0].count === 1);
      assert.ok(last.status === 'fulfilled' && last.value.admitted && last.value.charged[0].count === 1);
      assert.deepEqual([await held('before'), await held('broken'), await held('after')], [1, 0, 1]);
    });
  });

  describe('with budgets set out of reach', () => {
    // An operator may write a limit as large as they like; the
    // log's length test must not overflow (13 digits an entry).
    beforeEach(() =>
      start({ restReadsPerMinute: 1e9, restWritesPerMinute: 1e9, accountPerHour: 1e9, mcpPerTokenPerMinute: 1e9 }),
    );

    it('admits requests and reports the budgets, on both databases', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await read();
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.headers.get('ratelimit-remaining'), String(1e9 - 1 - i));
      }
    });
  });

  describe('at the SPEC defaults', () => {
    beforeEach(() => start(SPEC_DEFAULTS));

    it(
      'holds across a minute boundary: 120 requests in 1.2 s, ' +
        'then one every half second, never pass more than 60 in any 60 s',
      async () => {
        const admittedAt: number[] = [];
        const send = async () => {
          if ((await read()).status === 200) admittedAt.push(now);
        };
        now = Date.UTC(2030, 0, 1, 12, 0, 59, 500);
        const attack = now;
        for (let i = 0; i < 120; i++, now += 10) await send(); // across 12:01:00
        assert.equal(admittedAt.length, 60, 'the whole budget is usable at once, and no more');
        for (now = attack + 1_500; now < attack + 120_000; now += 500) await send();
        assert.equal(busiestWindow(admittedAt, 60_000), 60);
        assert.ok(admittedAt.includes(attack + 60_000), 'the budget is back a minute after the burst');
        assert.equal(admittedAt.length, 120, 'two minutes of attack, two budgets');
      },
    );

    it('keeps admitting steady use at exactly the limit, one read a second', async () => {
      for (let second = 0; second < 180; second++) {
        at(second);
        const res = await read();
        assert.equal(res.status, 200, `read at ${second} s`);
        assert.equal(res.headers.get('ratelimit-remaining'), String(Math.max(0, 59 - second)));
      }
    });
  });
});

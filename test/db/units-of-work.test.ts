import assert from 'node:assert/strict';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { unitsOfWork } from '../../src/db/units-of-work.js';
import { insertRows } from '../../src/db/repositories/rows.js';
import type { Repositories } from '../../src/db/repositories/index.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('units of work (repositories.inTransaction)', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let repos: Repositories;
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
    repos = t.deps.repos;
  });
  afterEach(() => t.close());

  const label = (r: Repositories, name: string, workspaceId = a.workspaceId) =>
    r.labels.create({ id: `lbl-${name}`, accountId: a.accountId, workspaceId, name, color: '#123456', createdAt: 1 });
  const labels = async () => (await repos.labels.list(a.accountId)).map((l) => l.name);

  it(
    'keeps the writes of units that resolve and takes back ' + 'those of a unit that throws, when asked for together',
    async () => {
      const [first, failed, last] = await Promise.allSettled([
        repos.inTransaction(async (r) => label(r, 'a')),
        repos.inTransaction(async (r) => {
          await label(r, 'b');
          throw new Error('changed my mind');
        }),
        repos.inTransaction(async (r) => label(r, 'c')),
      ]);
      assert.deepEqual(first, { status: 'fulfilled', value: true });
      assert.ok(failed.status === 'rejected' && failed.reason.message === 'changed my mind');
      assert.deepEqual(last, { status: 'fulfilled', value: true });
      assert.deepEqual(await labels(), ['a', 'c']);
    },
  );

  it('takes back a nested unit alone when it throws and the unit around it goes on', async () => {
    await repos.inTransaction(async (r) => {
      await label(r, 'outer');
      await assert.rejects(
        r.inTransaction(async (inner) => {
          await label(inner, 'inner');
          throw new Error('inner failed');
        }),
        /inner failed/,
      );
      await label(r, 'after');
    });
    assert.deepEqual(await labels(), ['after', 'outer']);
  });

  it(
    'lets the repositories made outside a unit, called inside it, ' +
      'join it at once: kept with it, taken back with it',
    async () => {
      const started = Date.now();
      await assert.rejects(
        repos.inTransaction(async () => {
          await label(repos, 'taken-back');
          assert.deepEqual(await labels(), ['taken-back'], 'the unit sees its own write');
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      const [, next] = await Promise.all([
        repos.inTransaction(async (r) => {
          await new Promise((resolve) => setImmediate(resolve));
          await label(repos, 'outer');
          await repos.inTransaction((inner) => label(inner, 'nested'));
          return r.labels.list(a.accountId);
        }),
        // A unit asked for in the next poll, outside the first: it waits for the first, not for a timeout.
        new Promise((resolve) => setImmediate(resolve)).then(() => repos.inTransaction((r) => label(r, 'next'))),
      ]);
      assert.equal(next, true);
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      assert.deepEqual(await labels(), ['nested', 'next', 'outer']);
    },
  );

  it('sends work a unit left running after it settled to the database itself', async () => {
    let later: Promise<unknown> | undefined;
    await repos.inTransaction(async () => {
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(() => label(repos, 'after'));
    });
    await later;
    assert.deepEqual(await labels(), ['after']);
  });

  it(
    'writes the rows of insertRows with the same columns in one statement, ' +
      'starting another where the columns change',
    async () => {
      const event = (kind: string, ...details: (string | undefined)[]) => ({
        account_id: a.accountId,
        post_id: 'p1',
        at: 1,
        kind,
        ...(details.length ? { details: details[0] } : {}),
      });
      const statements: string[] = [];
      t.herald.db.on('query', (q: { sql: string }) => statements.push(q.sql));
      // In a transaction of Knex's own its statements go through Knex on both databases, where they can be counted.
      const returned = await t.herald.db.transaction((trx) =>
        insertRows(
          trx,
          'post_events',
          [
            event('created', '{"a":1}'),
            event('updated', '{"b":2}'),
            event('queued'),
            event('deleted', '{}'),
            event('approved', undefined),
          ],
          'RETURNING kind, details',
        ),
      );
      // A column left undefined in a row that names it is stored as null.
      assert.deepEqual(
        returned.map((r) => [r.kind, r.details]),
        [
          ['created', '{"a":1}'],
          ['updated', '{"b":2}'],
          ['queued', null],
          ['deleted', '{}'],
          ['approved', null],
        ],
      );
      assert.equal(statements.filter((sql) => /INSERT INTO "post_events"/.test(sql)).length, 3, statements.join('\n'));
      assert.deepEqual(
        (await repos.postEvents.list(a.accountId, 'p1')).map((e) => e.kind),
        ['created', 'updated', 'queued', 'deleted', 'approved'],
      );
    },
  );

  it('binds true and false as each database stores them, inside a unit of work and outside', async () => {
    const endpoint = (id: string, enabled: boolean) =>
      repos.webhooks.insertEndpoint({
        id,
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        url: `https://example.com/${id}`,
        description: null,
        eventTypes: ['post.created'],
        sealedSecret: 'sealed',
        enabled,
        disabledReason: enabled ? null : 'turned off',
        failingSince: null,
        createdAt: 1,
        updatedAt: 1,
      });
    await endpoint('on', true);
    await endpoint('off', false);
    const ids = (endpoints: { id: string }[]) => endpoints.map((e) => e.id);
    assert.deepEqual(ids(await repos.webhooks.enabledEndpoints(a.workspaceId)), ['on']);
    assert.deepEqual(ids(await repos.inTransaction((r) => r.webhooks.enabledEndpoints(a.workspaceId))), ['on']);
  });

  if (TEST_DB === 'sqlite') {
    it(
      'on SQLite, runs units asked for together in one transaction, ' +
        'in the order asked, each seeing the writes before it',
      async () => {
        const statements: string[] = [];
        t.herald.db.on('query', (q: { sql: string }) => statements.push(q.sql));
        const seen = await Promise.all(
          Array.from({ length: 12 }, () =>
            repos.inTransaction(async (r) => {
              const before = (await r.labels.list(a.accountId)).length;
              await label(r, `n${String(before).padStart(2, '0')}`);
              return before;
            }),
          ),
        );
        assert.deepEqual(seen, [...Array(12).keys()]);
        assert.equal((await labels()).length, 12);
        assert.equal(statements.filter((sql) => /^BEGIN/i.test(sql)).length, 1, statements.join('\n'));
      },
    );

    it('on SQLite, sends the statements of a unit to its connection directly, in its savepoint', async () => {
      const statements: string[] = [];
      t.herald.db.on('query', (q: { sql: string }) => statements.push(q.sql));
      const history = (kind: string) => ({
        accountId: a.accountId,
        postId: 'p1',
        at: 1,
        actorUserId: null,
        kind: kind as 'created',
        details: null,
      });
      const results = await Promise.allSettled([
        repos.inTransaction((r) => r.postEvents.append([history('created')])),
        repos.inTransaction(async (r) => {
          await r.postEvents.append([history('deleted')]);
          throw new Error('changed my mind');
        }),
        repos.inTransaction(async (r) => {
          await r.postEvents.append([history('updated')]);
          return (await r.postEvents.list(a.accountId, 'p1')).map((e) => e.kind);
        }),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual((results[2] as PromiseFulfilledResult<unknown>).value, ['created', 'updated']);
      assert.deepEqual(
        (await repos.postEvents.list(a.accountId, 'p1')).map((e) => e.kind),
        ['created', 'updated'],
      );
      assert.equal(
        statements.filter((sql) => /select/i.test(sql) && /post_events/.test(sql)).length,
        2,
        'the reads, through Knex',
      );
      assert.deepEqual(
        statements.filter((sql) => /insert/i.test(sql)),
        [],
        'no write of the units went through Knex',
      );
    });

    it('on SQLite, settles no unit when the transaction cannot commit, and keeps none of their writes', async () => {
      const commit = unitsOfWork(t.herald.db, (trx: Knex.Transaction) => trx);
      const insert = (trx: Knex.Transaction, name: string, workspaceId = a.workspaceId) =>
        trx('labels').insert({
          id: `lbl-${name}`,
          account_id: a.accountId,
          workspace_id: workspaceId,
          name,
          name_key: name,
          color: '#123456',
          created_at: 1,
        });
      // A foreign key checked at COMMIT (deferred for the rest of the transaction) makes the commit itself fail.
      const results = await Promise.allSettled([
        commit(async (trx) => insert(trx, 'a')),
        commit(async (trx) => {
          await trx.raw('PRAGMA defer_foreign_keys = ON');
          await insert(trx, 'dangling', 'no-such-workspace');
        }),
        commit(async (trx) => insert(trx, 'c')),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected', 'rejected'],
      );
      for (const r of results) assert.match(String((r as PromiseRejectedResult).reason), /FOREIGN KEY/);
      assert.deepEqual(await labels(), []);
    });

    it(
      'on SQLite, holds the write lock from the first unit on, ' +
        'so another process cannot write between its reads and writes',
      async () => {
        // Another process's connection to the same file, which does not wait for a lock.
        const other = knex({
          client: 'better-sqlite3',
          connection: { filename: path.join(t.config.dataDir, 'herald.db') },
          useNullAsDefault: true,
          pool: {
            afterCreate(conn: { pragma(sql: string): unknown }, done: (error: null, conn: unknown) => void) {
              conn.pragma('busy_timeout = 0');
              done(null, conn);
            },
          },
        });
        const writeLock = async () => {
          try {
            await other.raw('BEGIN IMMEDIATE');
            await other.raw('ROLLBACK');
            return 'taken';
          } catch (error) {
            return (error as { code?: string }).code;
          }
        };
        try {
          const inUnit = await repos.inTransaction(async (r) => {
            await r.labels.list(a.accountId);
            return writeLock();
          });
          assert.equal(inUnit, 'SQLITE_BUSY');
          assert.equal(await writeLock(), 'taken');
        } finally {
          await other.destroy();
        }
      },
    );
  }
});

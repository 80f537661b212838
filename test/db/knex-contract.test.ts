import assert from 'node:assert/strict';
import type { SqliteConnection } from '../../src/db/connection.js';
import { startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';

/**
 * What Herald's SQLite statements rely on in Knex beyond its documented API (src/db/sqlite-statements.ts,
 * units-of-work.ts): a Knex upgrade that changes one of these fails here first.
 */
describe('Knex as Herald uses it on SQLite', () => {
  if (TEST_DB !== 'sqlite') return;
  let t: TestHerald;
  beforeEach(async () => {
    t = await startTestHerald();
  });
  afterEach(() => t.close());

  it(
    "hands out the pool's one connection with client.acquireConnection, " +
      "which Knex's queries wait for until client.releaseConnection",
    async () => {
      const db = t.herald.db;
      const connection = (await db.client.acquireConnection()) as SqliteConnection;
      assert.equal(typeof connection.prepare, 'function');
      assert.equal(connection.inTransaction, false);
      let settled = false;
      const query = db.raw('SELECT 1 AS one').then((rows: unknown) => {
        settled = true;
        return rows;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(settled, false, 'the query waits for the connection held');
      await db.client.releaseConnection(connection);
      assert.deepEqual(await query, [{ one: 1 }]);
    },
  );

  it("runs its statements through the connection's prepare, so the statement cache serves them", async () => {
    const db = t.herald.db;
    const connection = (await db.client.acquireConnection()) as SqliteConnection;
    const prepare = connection.prepare;
    const seen: string[] = [];
    connection.prepare = (sql: string) => {
      seen.push(sql);
      return prepare(sql);
    };
    await db.client.releaseConnection(connection);
    try {
      await db('labels').select('id').where({ id: 'none' });
      await db.transaction((trx) => trx('labels').select('name').where({ id: 'none' }), { connection });
    } finally {
      connection.prepare = prepare;
    }
    assert.ok(seen.includes('select `id` from `labels` where `id` = ?'), seen.join('\n'));
    assert.ok(seen.includes('select `name` from `labels` where `id` = ?'), seen.join('\n'));
  });
});

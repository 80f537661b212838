import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { SqliteConnection } from '../../src/db/connection.js';
import { cachePreparedStatements } from '../../src/db/sqlite-statements.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

/** better-sqlite3 itself, as another process would open the file (the package ships no types). */
interface RawConnection extends SqliteConnection {
  pragma(sql: string): unknown;
  exec(sql: string): void;
  transaction(work: () => void): () => void;
  close(): void;
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (filename: string) => RawConnection;

describe('SQLite statements (db/sqlite-statements.ts)', () => {
  if (TEST_DB !== 'sqlite') return;

  describe('the prepared-statement cache', () => {
    let dir: string;
    let conn: RawConnection;
    let prepared: string[];
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-statements-'));
      conn = new Database(path.join(dir, 'cache.db'));
      const prepare = conn.prepare.bind(conn);
      prepared = [];
      conn.prepare = (sql: string) => {
        prepared.push(sql);
        return prepare(sql);
      };
      cachePreparedStatements(conn, 2);
      conn.prepare('CREATE TABLE t (a INTEGER, b TEXT)').run();
      conn.prepare('INSERT INTO t (a, b) VALUES (1, ?)').run('one');
    });
    afterEach(() => {
      conn.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it(
      'prepares a text once and hands the same statement back, ' + 'dropping the least recently used past its limit',
      () => {
        const first = conn.prepare('SELECT a FROM t');
        assert.equal(conn.prepare('SELECT a FROM t'), first);
        conn.prepare('SELECT b FROM t');
        conn.prepare('SELECT a FROM t');
        conn.prepare('SELECT a, b FROM t');
        assert.equal(conn.prepare('SELECT a FROM t'), first, 'used last but one, so kept');
        conn.prepare('SELECT b FROM t');
        assert.deepEqual(
          prepared.filter((sql) => sql.startsWith('SELECT')),
          ['SELECT a FROM t', 'SELECT b FROM t', 'SELECT a, b FROM t', 'SELECT b FROM t'],
        );
      },
    );

    it('returns rows as objects named by their columns', () => {
      assert.deepEqual(conn.prepare('SELECT * FROM t').all(), [{ a: 1, b: 'one' }]);
      assert.deepEqual(conn.prepare('SELECT b, a FROM t WHERE a = ?').get(1), { b: 'one', a: 1 });
    });

    it(
      'reads the same values under the same names after another ' +
        'connection rebuilds the table with its columns reordered',
      () => {
        const read = conn.prepare('SELECT * FROM t');
        const before = { all: read.all(), get: read.get() };
        assert.deepEqual(before.get, { a: 1, b: 'one' });
        const other = new Database(path.join(dir, 'cache.db'));
        other.exec(
          'CREATE TABLE t2 (b TEXT, a INTEGER); INSERT INTO t2 (b, a) ' +
            'SELECT b, a FROM t; DROP TABLE t; ALTER TABLE t2 RENAME TO t',
        );
        other.close();
        assert.equal(conn.prepare('SELECT * FROM t'), read, 'the same cached statement');
        assert.deepEqual({ all: read.all(), get: read.get() }, before);
        assert.deepEqual(conn.prepare('SELECT * FROM t WHERE a = ?').get(1), { a: 1, b: 'one' });
      },
    );

    it('forgets its statements when this connection changes the schema', () => {
      const before = conn.prepare('SELECT * FROM t');
      conn.prepare('ALTER TABLE t ADD COLUMN c TEXT').run();
      assert.notEqual(conn.prepare('SELECT * FROM t'), before);
      assert.deepEqual(conn.prepare('SELECT * FROM t').all(), [{ a: 1, b: 'one', c: null }]);
    });
  });

  describe('a table rebuilt by another process with its columns in another order', () => {
    let t: TestHerald;
    let a: SeededAccount;
    beforeEach(async () => {
      t = await startTestHerald();
      a = await t.seedAccount();
    });
    afterEach(() => t.close());

    /** What an older Herald's migration does to a table while this one runs: the same columns, in reverse order. */
    function rebuildReversed(table: string): void {
      const other = new Database(path.join(t.config.dataDir, 'herald.db'));
      try {
        other.pragma('foreign_keys = OFF');
        const columns = (other.pragma(`table_info(${table})`) as { name: string; type: string }[]).reverse();
        const names = columns.map((c) => `"${c.name}"`).join(', ');
        other.transaction(() => {
          other
            .prepare(`CREATE TABLE "${table}_rebuilt" (${columns.map((c) => `"${c.name}" ${c.type}`).join(', ')})`)
            .run();
          other.prepare(`INSERT INTO "${table}_rebuilt" (${names}) SELECT ${names} FROM "${table}"`).run();
          other.prepare(`DROP TABLE "${table}"`).run();
          other.prepare(`ALTER TABLE "${table}_rebuilt" RENAME TO "${table}"`).run();
        })();
      } finally {
        other.close();
      }
    }

    it('gives the same values under the same names: webhook endpoints, channels and workspaces', async () => {
      const repos = t.deps.repos;
      await repos.webhooks.insertEndpoint({
        id: 'wh1',
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        url: 'https://example.com/hook',
        description: 'mine',
        eventTypes: ['post.created'],
        sealedSecret: 'sealed-secret',
        enabled: true,
        disabledReason: null,
        failingSince: null,
        createdAt: 1,
        updatedAt: 2,
      });
      const channelIds = (await repos.channels.list(a.accountId)).map((c) => c.id);
      const read = async () => ({
        endpoint: await repos.webhooks.endpoint(a.accountId, 'wh1'),
        enabled: await repos.webhooks.enabledEndpoints(a.workspaceId),
        inUnit: await repos.inTransaction((r) => r.webhooks.enabledEndpoints(a.workspaceId)),
        channels: await repos.channels.findMany(a.accountId, channelIds),
        channel: await repos.channels.get(a.accountId, channelIds[0]),
        workspaces: await repos.accounts.listWorkspaces(a.accountId),
      });
      const before = await read();
      assert.equal(before.endpoint?.url, 'https://example.com/hook');
      assert.equal(before.endpoint?.sealedSecret, 'sealed-secret');
      for (const table of ['webhook_endpoints', 'channels', 'workspaces']) rebuildReversed(table);
      assert.deepEqual(await read(), before);
    });
  });
});

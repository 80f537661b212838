import assert from 'node:assert/strict';
import path from 'node:path';
import knex from 'knex';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('the SQLite connection', () => {
  if (TEST_DB !== 'sqlite') return;
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  afterEach(() => t.close());

  const labelRow = (name: string, workspaceId = a.workspaceId) => ({
    id: `lbl-${name}`,
    account_id: a.accountId,
    workspace_id: workspaceId,
    name,
    name_key: name,
    color: '#123456',
    created_at: 1,
  });

  it('is left in no transaction by one whose COMMIT failed, so the writes after it are kept', async () => {
    const db = t.herald.db;
    // A foreign key checked at COMMIT (deferred for the rest of the transaction) makes the commit itself fail.
    await assert.rejects(
      db.transaction(async (trx) => {
        await trx.raw('PRAGMA defer_foreign_keys = ON');
        await trx('labels').insert(labelRow('dangling', 'no-such-workspace'));
      }),
      /FOREIGN KEY/,
    );
    await db('labels').insert(labelRow('after'));
    // What another process reads is what was committed.
    const other = knex({
      client: 'better-sqlite3',
      connection: { filename: path.join(t.config.dataDir, 'herald.db') },
      useNullAsDefault: true,
    });
    try {
      assert.deepEqual(await other('labels').where({ account_id: a.accountId }).pluck('name'), ['after']);
    } finally {
      await other.destroy();
    }
  });
});

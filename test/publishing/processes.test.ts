import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { PostRecord } from '../../src/db/repositories/posts.js';
import { newId } from '../../src/domain/ids.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { eventually, testWorker } from './support.js';

/** Several `herald worker` processes over one database: the claim rule, leases and reconciliation for real. */
describe('publishing workers as separate processes', function () {
  // Spawning tsx processes on a loaded machine is slow; nothing here is timed.
  this.timeout(240_000);
  let t: TestHerald;
  let a: SeededAccount;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 2 });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
    await t.close();
  });

  function startWorker(env: Record<string, string> = {}): ChildProcess {
    const child = spawn('node', ['bin/herald.mjs', 'worker'], {
      env: {
        ...process.env, HERALD_FROM_SOURCE: '1', DATA_DIR: t.config.dataDir, DATABASE_URL: t.config.databaseUrl ?? '',
        BASE_URL: t.url, WORKER_POLL_MS: '50', ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => { if (process.env.HERALD_TEST_WORKER_LOGS) process.stderr.write(chunk); });
    children.push(child);
    return child;
  }

  async function duePosts(n: number): Promise<string[]> {
    const now = Date.now() - 1_000;
    const records: PostRecord[] = Array.from({ length: n }, (_, i) => ({
      id: newId(), accountId: a.accountId, workspaceId: a.workspaceId, channelId: a.channelIds[i % 2], groupId: null,
      text: `Due ${i}`, dateTime: now, timelineAt: now, isScheduled: true, isDraft: false, isLive: false, status: 'scheduled',
      approvalStatus: null, type: 'text', sourceType: 'api', imageUrls: [], videoUrls: [], firstComment: null, channelOptions: null,
      networkPostId: null, permalinkUrl: null, metrics: null, lastError: null, publishedAt: null, createdAt: now, updatedAt: now,
    }));
    for (let i = 0; i < records.length; i += 200) await t.deps.repos.posts.insertMany(records.slice(i, i + 200));
    return records.map((r) => r.id);
  }

  /** Posts by status, and how many sandbox posts each Herald post produced (by idempotency key prefix). */
  async function outcome(ids: string[]) {
    const statuses = new Map<string, number>();
    const copies = new Map<string, number>();
    for (const id of ids) {
      const post = await t.deps.repos.posts.get(a.accountId, id);
      statuses.set(post!.status, (statuses.get(post!.status) ?? 0) + 1);
    }
    for (const channelId of a.channelIds) {
      for (const p of await t.deps.repos.sandbox.recent(channelId, 100_000)) {
        const postId = p.idempotencyKey!.split(':')[0];
        copies.set(postId, (copies.get(postId) ?? 0) + 1);
      }
    }
    return { statuses, copies };
  }

  const settled = () =>
    eventually(async () => {
      const [{ n }] = await t.herald.db('posts').where({ account_id: a.accountId }).whereIn('status', ['scheduled', 'publishing']).count({ n: '*' });
      return Number(n) === 0 ? true : undefined;
    }, 'every post to be settled', 200_000);

  it(`two workers racing over many due posts publish each exactly once (${TEST_DB === 'postgres' ? 1000 : 300})`, async () => {
    const ids = await duePosts(TEST_DB === 'postgres' ? 1000 : 300);
    startWorker();
    startWorker();
    await settled();
    const { statuses, copies } = await outcome(ids);
    assert.deepEqual([...statuses], [['published', ids.length]]);
    assert.equal(copies.size, ids.length);
    assert.deepEqual([...new Set(copies.values())], [1], 'no post was sent twice');
  });

  it('a worker killed mid-publish, then another: nothing published twice, nothing lost', async () => {
    const ids = await duePosts(200);
    const first = startWorker({ WORKER_LEASE_SECONDS: '2' });
    await eventually(async () => ((await t.herald.db('posts').where({ status: 'published' }).first('id')) ? true : undefined), 'the first worker to publish something', 200_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    startWorker({ WORKER_LEASE_SECONDS: '2' });
    await settled();
    // A post whose attempt was cut off before the network saw it is unconfirmed, not retried; one the
    // network did see is reconciled. A later sync picks up any that reached the network after all.
    await testWorker(t).sync();
    const { statuses, copies } = await outcome(ids);
    assert.deepEqual([...new Set(copies.values())].filter((n) => n !== 1), [], 'no post was sent twice');
    for (const id of ids) {
      const post = await t.deps.repos.posts.get(a.accountId, id);
      assert.equal(post!.status, copies.has(id) ? 'published' : 'unconfirmed', `post ${id}`);
    }
    assert.ok((statuses.get('published') ?? 0) >= ids.length - 8, `nearly all published: ${JSON.stringify([...statuses])}`);
  });
});

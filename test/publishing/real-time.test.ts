import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { eventually, testWorker } from './support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const run = promisify(execFile);

/** The worker on its own loop and real clock, and the sandbox CLI as an operator would use it. */
describe('publishing: real time and the sandbox CLI', function () {
  this.timeout(120_000);
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald({ worker: true, workerPollMs: 100 });
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());
  const get = async (id: string) => (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;

  it('publishes a post scheduled a few seconds ahead when it is due, not before', async () => {
    const dateTime = new Date(Date.now() + 4_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: a.channelIds, text: 'Soon', isScheduled: true, dateTime },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data[0].id;
    const published = await eventually(async () => {
      const post = await get(id);
      if (post.status !== 'published' && Date.now() < Date.parse(dateTime))
        assert.equal(post.status, 'scheduled', 'nothing happens before the due time');
      return post.status === 'published' ? post : undefined;
    }, 'the scheduled post to be published');
    assert.ok(
      Date.parse(published.publishedAt) >= Date.parse(dateTime),
      `${published.publishedAt} is not before ${dateTime}`,
    );
  });

  it(
    'herald sandbox fail and post-external drive the sandbox: ' +
      'a permanent rejection, then a live post found by sync',
    async () => {
      const env = {
        ...process.env,
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: t.config.databaseUrl ?? '',
      };
      await t.herald.worker!.stop();
      const fail = await run(
        'node',
        [HERALD_CLI, 'sandbox', 'fail', '--channel', a.channelIds[0], '--mode', 'permanent', '--json'],
        { env },
      );
      assert.deepEqual(JSON.parse(fail.stdout), { channelId: a.channelIds[0], mode: 'permanent', times: 1 });
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: a.channelIds, text: 'Refused' },
      });
      const worker = testWorker(t);
      await worker.tick();
      const failed = await get(created.body.data[0].id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /rejected this post/);

      await run(
        'node',
        [
          HERALD_CLI,
          'sandbox',
          'post-external',
          '--channel',
          a.channelIds[0],
          '--text',
          'From the app <b>',
          '--likes',
          '4',
          '--json',
        ],
        { env },
      );
      await worker.sync();
      const live = (await t.api('GET', '/v1/rest/posts?livePosts=true', { token: a.apiKey })).body.data.filter(
        (p: { isLivePost: boolean }) => p.isLivePost,
      );
      assert.deepEqual(
        live.map((p: { text: string; metrics: { likes: number } }) => [p.text, p.metrics.likes]),
        [['From the app <b>', 4]],
      );
      assert.equal(
        (await t.api('PATCH', `/v1/rest/posts/${live[0].id}`, { token: a.apiKey, body: { text: 'edit' } })).status,
        409,
      );

      await assert.rejects(
        run('node', [HERALD_CLI, 'sandbox', 'fail', '--channel', a.channelIds[0], '--mode', 'explode'], { env }),
        (error: { stderr: string }) => {
          assert.match(
            error.stderr,
            new RegExp(
              /--mode must be one of rate_limited, transient, permanent, /.source +
                /auth_expired, timeout_after_post, slow_after_post, none/.source,
            ),
          );
          return true;
        },
      );
    },
  );
});

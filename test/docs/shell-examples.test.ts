/**
 * The shell examples of README.md's first ten minutes and of docs/rest-api.md run as written, with bash and curl
 * only (what a fresh Debian machine with Node has: no uuidgen, no jq), against a real Herald: its address and
 * the demo key's file are the only things put in place of what `make run` makes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

const run = promisify(execFile);

/** The ```sh block of a page that holds `marker`. */
function shellBlock(page: string, marker: string): string {
  const blocks = [...fs.readFileSync(page, 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const block = blocks.find((b) => b.includes(marker));
  assert.ok(block, `${page} has a sh block with ${marker}`);
  return block;
}

// The docs' examples as written: their requests are tested on both databases in test/rest.
describeOnce('the shell examples of the documentation', function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let dir: string;
  before(async () => {
    t = await startTestHerald({ worker: true });
    a = await t.seedAccount();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-examples-'));
    fs.mkdirSync(path.join(dir, 'data'));
    fs.writeFileSync(path.join(dir, 'data', 'demo-api-key'), `${a.apiKey}\n`);
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a block in a directory laid out as `make run` leaves it, each command's failure the block's. */
  async function runBlock(block: string): Promise<string> {
    const script = block.replaceAll('http://localhost:8080', t.url);
    const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    return stdout;
  }

  it("README's first post through the API is created, published and read back", async () => {
    const out = await runBlock(shellBlock('README.md', 'KEY=$(cat data/demo-api-key)'));
    const post = JSON.parse(out).data;
    assert.equal(post.channelId, a.channelIds[0]);
    assert.equal(post.text, 'Hello from the API');
    assert.ok(['scheduled', 'publishing', 'published'].includes(post.status), post.status);
    for (let polls = 0; polls < 100 && post.status !== 'published'; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      post.status = (await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).body.data.status;
    }
    assert.equal(post.status, 'published', 'as the example says it will be');
  });

  it("docs/rest-api.md's glance schedules a post with an idempotency key and lists posts", async () => {
    const out = await runBlock(shellBlock('docs/rest-api.md', 'Idempotency-Key'));
    // curl -s prints each answer without a newline after it.
    const answers = out
      .trim()
      .replace(/}\s*{/g, '}\n{')
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(answers.length, 4, 'channels, the created post, the posts, the live posts');
    assert.equal(answers[1].data[0].status, 'scheduled');
    assert.equal(answers[1].data[0].dateTime, '2030-01-01T09:00:00.000Z');
    assert.ok(answers[2].data.some((p: { id: string }) => p.id === answers[1].data[0].id));
  });
});

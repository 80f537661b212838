/** A started server has compiled its OpenAPI validation: its first request does not wait for it. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

describe('the first request after startup', () => {
  it('finds the OpenAPI validator compiled before the server said it was ready', async function () {
    this.timeout(120_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-first-request-'));
    try {
      const run = async (...args: string[]) =>
        (
          await promisify(execFile)('node_modules/.bin/tsx', ['test/rest/first-request-server.ts', ...args], {
            env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
          })
        ).stdout
          .trim()
          .split('\n')
          .at(-1)!;
      const apiKey = await run('seed');
      const { status, cpuMs } = JSON.parse(await run('ask', apiKey));
      assert.equal(status, 200);
      // Compiling the spec costs 0.3-0.5 s of CPU; a read, its route's own validation included, well under that.
      assert.ok(cpuMs < 200, `the first request cost ${cpuMs} ms of CPU`);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

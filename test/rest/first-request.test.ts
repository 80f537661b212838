/**
 * A started server has compiled its OpenAPI validation: its first request does not wait for it (0.4-0.5 s of CPU,
 * the insights bench's one slow answer in 50 before; its cost is measured there, not here).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

describe('the first request after startup', () => {
  it('finds the OpenAPI validator compiled when the server says it is ready', async function () {
    this.timeout(120_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-first-request-'));
    try {
      const { stdout } = await promisify(execFile)('node_modules/.bin/tsx', ['test/rest/first-request-server.ts'], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      });
      assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), { compiled: true });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

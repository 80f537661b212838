import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { freshDatabase } from '../support/herald.js';
import { TINY_PNG } from './fixtures.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const run = promisify(execFile);

describe('herald media import (CLI)', function () {
  // Each command is a fresh Node process compiling TypeScript through tsx: slow on a busy machine.
  this.timeout(180_000);
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let origin: http.Server;
  let base: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    database = await freshDatabase();
    origin = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.2', resolve));
    base = `http://127.0.0.2:${(origin.address() as AddressInfo).port}`;
    env = {
      ...process.env,
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
      // The image origin for imports is on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.2',
      BASE_URL: 'https://herald.example',
    };
  });
  after(async () => {
    await new Promise((resolve) => origin.close(resolve));
    await database.drop();
  });

  it('imports a direct file into the workspace library, and refuses a private address', async () => {
    const herald = async (...args: string[]) =>
      JSON.parse((await run('node', [HERALD_CLI, ...args, '--json'], { env })).stdout);
    const account = await herald(
      'account',
      'create',
      '--name',
      'Acme',
      '--email',
      'media@acme.test',
      '--password',
      'long enough password',
    );
    const media = await herald(
      'media',
      'import',
      '--account',
      account.accountId,
      '--workspace',
      account.workspaceId,
      '--url',
      `${base}/logo.png`,
    );
    assert.equal(media.contentType, 'image/png');
    assert.equal(media.url, `https://herald.example/media/${media.id}/logo.png`);
    assert.ok(
      fs.readFileSync(path.join(database.dataDir, 'media', account.workspaceId, media.id, 'logo.png')).equals(TINY_PNG),
    );
    await assert.rejects(
      run(
        'node',
        [
          HERALD_CLI,
          'media',
          'import',
          '--account',
          account.accountId,
          '--workspace',
          account.workspaceId,
          '--url',
          'http://10.0.0.1/logo.png',
        ],
        { env },
      ),
      (error: any) => error.code !== 0 && /not an address Herald may fetch from/.test(error.stderr),
    );
  });
});

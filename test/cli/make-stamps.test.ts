/**
 * `make run` builds only what changed: each step (generate, the web build, tsc) has a stamp newer than every file
 * it read. Asked with `make -n` (print, run nothing) and `-W FILE` (as if FILE had just changed), so the test
 * builds nothing; the stamps live in a folder of its own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

describe('make build redoes only the steps whose files changed', () => {
  let stamps: string;
  before(() => {
    stamps = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-stamps-'));
    // Stamps from a build just done: newer than every file of the checkout.
    const later = new Date(Date.now() + 60_000);
    for (const step of ['generate', 'web', 'tsc']) {
      fs.writeFileSync(path.join(stamps, step), '');
      fs.utimesSync(path.join(stamps, step), later, later);
    }
  });
  after(() => fs.rmSync(stamps, { recursive: true, force: true }));

  /**
   * The commands make would run for `build` if `changed` had just changed (the installed packages taken as they are).
   */
  async function steps(...changed: string[]): Promise<string[]> {
    const args = [
      '-n',
      '-o',
      'node_modules/.installed',
      `STAMPS=${stamps}`,
      ...changed.flatMap((file) => ['-W', file]),
      'build',
    ];
    const { stdout } = await run('make', args);
    return ['scripts/generate.ts', 'scripts/build-web.ts', 'tsc -p tsconfig.build.json'].filter((step) =>
      stdout.includes(step),
    );
  }

  it('does nothing when nothing changed, and only what a change reaches', async () => {
    assert.deepEqual(await steps(), []);
    assert.deepEqual(await steps('src/cli/main.ts'), ['tsc -p tsconfig.build.json']);
    assert.deepEqual(await steps('web/src/main.tsx'), ['scripts/build-web.ts']);
    assert.deepEqual(await steps('src/domain/networks/capabilities.ts'), [
      'scripts/build-web.ts',
      'tsc -p tsconfig.build.json',
    ]);
    assert.deepEqual(await steps('openapi/openapi.yaml'), [
      'scripts/generate.ts',
      'scripts/build-web.ts',
      'tsc -p tsconfig.build.json',
    ]);
    assert.deepEqual(await steps('jsonrpc-schemas/create_text_post.json'), [
      'scripts/generate.ts',
      'scripts/build-web.ts',
      'tsc -p tsconfig.build.json',
    ]);
  });
});

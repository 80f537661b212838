/**
 * The 120-column check `make lint` runs (scripts/check-line-length.mjs): a longer source line is named by file and
 * line, columns are code points (an accented line of 120 passes), and data files and generated/ are not source.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error: a plain .mjs script, run by make lint with node, has no declarations.
import { LIMIT, longLines } from '../../scripts/check-line-length.mjs';
import { describeOnce } from '../support/databases.js';

describeOnce('source lines within 120 columns (scripts/check-line-length.mjs)', () => {
  let dir: string;
  const write = (name: string, lines: string[]) => {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, lines.join('\n'));
    return file;
  };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-line-length-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names each source line over 120 columns, counting code points', () => {
    const long = write('src/long.ts', ['const a = 1;', `// ${'x'.repeat(LIMIT - 2)}`, 'é'.repeat(LIMIT)]);
    const crlf = write('src/crlf.ts', [`${'y'.repeat(LIMIT)}\r`, '']);
    assert.equal(LIMIT, 120);
    assert.deepEqual(longLines([long, crlf]), [`${long}:2 (121 columns)`]);
  });

  it('leaves data and generated code alone', () => {
    const wide = 'z'.repeat(LIMIT + 40);
    const files = ['a.json', 'notes.md', 'logo.svg', 'rest-read.cpuprofile', 'generated/rest/handlers.ts'];
    assert.deepEqual(longLines(files.map((name) => write(name, [wide]))), []);
  });

  it('fails make lint with the offending lines listed', () => {
    write('src/long.ts', [`// ${'w'.repeat(LIMIT)}`]);
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['add', 'src/long.ts'], { cwd: dir });
    const script = path.resolve('scripts/check-line-length.mjs');
    const run = () => execFileSync(process.execPath, [script, 'src'], { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
    assert.throws(run, (error: { status: number; stderr: string }) => {
      assert.equal(error.status, 1);
      assert.match(error.stderr, /^src\/long\.ts:1 \(123 columns\)$/m);
      return true;
    });
    fs.writeFileSync(path.join(dir, 'src/long.ts'), '// short\n');
    assert.equal(run(), '');
  });
});

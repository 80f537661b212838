/**
 * The SDK as someone outside this repository gets it: `make sdk`'s tarball installed offline into a project of its
 * own, a script run by plain node against a running Herald, and a TypeScript file that uses it type-checked there.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { packSdk } from '../../scripts/pack-sdk.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

const run = promisify(execFile);
const TSC = path.resolve('node_modules/.bin/tsc');

const SCRIPT = `
import { createHeraldClient, createHeraldMcpClient, paginate, unwrap, HeraldNotFoundError } from '@herald/sdk';

const [url, token, channelId] = process.argv.slice(2);
const herald = createHeraldClient({ baseUrl: url, token });
for (const text of ['a', 'b', 'c']) await unwrap(herald.POST('/posts', { body: { channelIds: [channelId], text } }));
const texts = [];
for await (const post of paginate(herald, '/posts', { params: { query: { limit: 2 } } })) texts.push(post.text);
let missing;
try {
  await unwrap(herald.GET('/posts/{postId}', { params: { path: { postId: 'pst_none' } } }));
} catch (error) {
  missing = { family: error instanceof HeraldNotFoundError, name: error.name, status: error.status, code: error.code };
}
const mcp = createHeraldMcpClient({ url: url + '/mcp', token });
const tools = await mcp.listTools();
const { data: channels } = await mcp.callTool('get_channels', {});
const result = { texts: texts.sort(), missing, hasTool: tools.includes('get_channels'), channels: channels.length };
console.log(JSON.stringify(result));
`;

const TYPED = `
import { createHeraldClient, paginate, unwrap, HeraldApiError, type Post } from '@herald/sdk';

export async function titles(token: string): Promise<string[]> {
  const herald = createHeraldClient({ baseUrl: 'http://localhost:8080', token, retries: 1 });
  const out: string[] = [];
  for await (const post of paginate(herald, '/posts', { params: { query: { limit: 10 } } })) {
    const p: Post = post;
    out.push(p.text);
  }
  const channels = await unwrap(herald.GET('/channels'));
  out.push(channels.data[0].id);
  try {
    // @ts-expect-error channelIds is required on create
    await herald.POST('/posts', { body: { text: 'no channels' } });
  } catch (error) {
    if (error instanceof HeraldApiError) out.push(error.code, String(error.status));
  }
  // @ts-expect-error unknown route
  void herald.GET('/nope');
  return out;
}
`;

describe('the SDK package, installed from its tarball outside the repository', function () {
  this.timeout(180_000);
  let t: TestHerald;
  let a: SeededAccount;
  let project: string;

  before(async () => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-sdk-user-'));
    const tarball = packSdk(project);
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(async () => {
    await t?.close();
    fs.rmSync(project, { recursive: true, force: true });
  });

  it('holds JavaScript and type declarations, with openapi-fetch bundled', () => {
    const installed = path.join(project, 'node_modules', '@herald', 'sdk');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.name, '@herald/sdk');
    assert.ok(fs.existsSync(path.join(installed, manifest.exports['.'].default)));
    assert.ok(fs.existsSync(path.join(installed, manifest.exports['.'].types)));
    assert.ok(fs.existsSync(path.join(installed, 'node_modules', 'openapi-fetch', 'package.json')));
    assert.deepEqual(
      fs.readdirSync(path.join(project, 'node_modules')).filter((name) => !name.startsWith('.')),
      ['@herald'],
      'nothing else was installed',
    );
  });

  it('runs under plain node against a running Herald: REST, paging, typed errors and MCP', async () => {
    fs.writeFileSync(path.join(project, 'use.mjs'), SCRIPT);
    const { stdout } = await run(process.execPath, ['use.mjs', t.url, a.apiKey, a.channelIds[0]], { cwd: project });
    const result = JSON.parse(stdout);
    assert.deepEqual(result.texts, ['a', 'b', 'c']);
    assert.deepEqual(result.missing, { family: true, name: 'HeraldNotFoundError', status: 404, code: 'not_found' });
    assert.equal(result.hasTool, true);
    assert.equal(result.channels, 2);
  });

  // Its @ts-expect-error lines fail the check too, as unused, if the types loosen and let the misuse through.
  it('type-checks a TypeScript file that uses it, and refuses its misuses', async () => {
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['typed.ts'],
      }),
    );
    fs.writeFileSync(path.join(project, 'typed.ts'), TYPED);
    const checked = await run(TSC, ['-p', 'tsconfig.json'], { cwd: project }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    assert.equal(checked, '');
  });
});

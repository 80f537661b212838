/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against a running Herald, for the
 * server scenarios that apply to Herald; docs/mcp.md (Conformance) lists the others and why they do not.
 * The suite's CLI cannot send an Authorization header, so it reaches Herald through a loopback proxy that
 * adds the API key and changes nothing else (Origin and Host pass through for the DNS rebinding scenario).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { rpc } from './support.js';

const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const CLI = path.resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

async function startBearerProxy(target: string, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function runScenario(
  url: string,
  scenario: string,
  outputDir: string,
): Promise<{ exitCode: number; output: string; checks: Check[] }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'server', '--url', url, '--scenario', scenario, '-o', outputDir],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const runs = fs.readdirSync(outputDir).filter((name) => name.startsWith(`server-${scenario}-`));
        const checks: Check[] =
          runs.length === 1 ? JSON.parse(fs.readFileSync(path.join(outputDir, runs[0], 'checks.json'), 'utf8')) : [];
        resolve({
          exitCode: typeof error?.code === 'number' ? error.code : error ? 1 : 0,
          output: stdout + stderr,
          checks,
        });
      },
    );
  });
}

describe(`MCP conformance suite, server scenarios (${TEST_DB})`, function () {
  this.timeout(120_000);
  let h: TestHerald;
  let account: SeededAccount;
  let proxy: Awaited<ReturnType<typeof startBearerProxy>>;
  let outputDir: string;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    proxy = await startBearerProxy(h.url, account.apiKey);
    outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-conformance-'));
  });
  after(async () => {
    await proxy?.close();
    await h?.close();
    fs.rmSync(outputDir, { recursive: true, force: true });
  });

  for (const mcpPath of ['/mcp', '/mcp/claude']) {
    for (const scenario of APPLICABLE_SCENARIOS) {
      it(`${scenario} on ${mcpPath}: every check passes`, async () => {
        const dir = fs.mkdtempSync(path.join(outputDir, 'run-'));
        const run = await runScenario(proxy.url + mcpPath, scenario, dir);
        assert.ok(run.checks.length > 0, `the scenario ran checks:\n${run.output}`);
        for (const check of run.checks)
          assert.equal(check.status, 'SUCCESS', `${check.id}: ${check.errorMessage ?? ''}\n${run.output}`);
        assert.equal(run.exitCode, 0, run.output);
      });
    }
  }

  it('the suite fails a server that breaks a scenario (the harness can fail)', async () => {
    const broken = await startBearerProxy(h.url, 'hk_not_a_key');
    try {
      const run = await runScenario(broken.url + '/mcp', 'ping', fs.mkdtempSync(path.join(outputDir, 'run-')));
      assert.notEqual(run.exitCode, 0);
    } finally {
      await broken.close();
    }
  });

  // json-schema-2020-12 looks for the reference server's fixture tool; its point, that tools/list keeps every
  // schema keyword, is checked here on Herald's own tools, in both eras.
  it('tools/list keeps each tool schema as its contract states it (the intent of json-schema-2020-12)', async () => {
    const legacy = await rpc(h, { token: account.apiKey, method: 'tools/list' });
    const modern = await rpc(h, {
      token: account.apiKey,
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
    });
    for (const answer of [legacy, modern]) {
      const listed = new Map(answer.body.result.tools.map((t: { name: string }) => [t.name, t]));
      for (const tool of toolCatalogue) {
        const served = listed.get(tool.name) as { inputSchema: unknown; outputSchema: unknown };
        assert.deepEqual(served.inputSchema, tool.inputSchema, tool.name);
        assert.deepEqual(served.outputSchema, tool.outputSchema, tool.name);
      }
    }
  });
});

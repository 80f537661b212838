/**
 * MCP tasks, each era as its spec says: 2025-11-25's core tasks (params.task, tasks/get, tasks/result,
 * tasks/list, tasks/cancel) driven by the 1.x SDK client's experimental tasks API, and 2026-07-28's
 * io.modelcontextprotocol/tasks extension (Herald decides; resultType "task"; tasks/get inlining the result;
 * tasks/update; tasks/cancel acknowledged), polled with the v2 client. Tasks live in the database: one started
 * through one instance is read and cancelled through another on the same database. Cancelling bulk_schedule
 * stops it between entries and says how far it got; work that cannot stop runs to its end and its task says
 * so. Expired tasks are hidden, then purged. The edge cases are raw JSON-RPC.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { futureIso, startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { TINY_PNG } from '../media/fixtures.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from '../oauth/support.js';
import { ORIGIN_HOST, startImageOrigin } from './all-tools.js';
import { rpc } from './support.js';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const TASKS = 'io.modelcontextprotocol/tasks';
const SERVER_INFO = { name: 'herald', title: 'Herald', version: '0.1.0' };
const HIGH_BUDGETS = {
  restReadsPerMinute: 1_000_000,
  restWritesPerMinute: 1_000_000,
  accountPerHour: 10_000_000,
  mcpPerTokenPerMinute: 1_000_000,
};
const TASK_TOOLS = ['bulk_schedule', 'complete_media_upload', 'generate_image', 'import_media_from_url'];

function bulkEntries(account: SeededAccount, count: number, label: string) {
  return Array.from({ length: count }, (_, i) => ({
    text: `${label} ${i}`,
    channelIds: [account.channelIds[i % 2]],
    isScheduled: true,
    dateTime: futureIso(60 + i),
  }));
}

/**
 * 100 entries of 50 posts each: seconds of work, so a cancel seen after the first entries lands well before the end.
 */
function heavyBulk(account: SeededAccount, label: string) {
  return Array.from({ length: 100 }, (_, i) => ({
    text: `${label} ${i}`,
    channelIds: account.channelIds,
    isScheduled: true,
    dateTime: futureIso(60 + i),
  }));
}

/** A 2026-07-28 request with every header right; `tasks` says whether the client declares the extension. */
function modern(
  h: TestHerald,
  token: string,
  method: string,
  params: Record<string, unknown>,
  options: { tasks?: boolean; headers?: Record<string, string> } = {},
) {
  const name = method === 'tools/call' ? params.name : params.taskId;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': options.tasks === false ? {} : { extensions: { [TASKS]: {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...options.headers,
  };
  return rpc(h, { token, method, params: { ...params, _meta: meta }, headers });
}

/** A 2025-11-25 request after initialize: the revision rides in the MCP-Protocol-Version header. */
function legacy(h: TestHerald, token: string, method: string, params: Record<string, unknown>, revision = LEGACY) {
  return rpc(h, { token, method, params, headers: { 'mcp-protocol-version': revision } });
}

/** A StandardSchema for the v2 client's request(): the extension's methods have no schema in the SDK. */
function shaped<T>(check: (value: any) => string | undefined) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'herald-tests',
      validate: (value: unknown) => {
        const problem = check(value);
        return problem ? { issues: [{ message: problem }] } : { value: value as T };
      },
    },
  };
}

interface DetailedTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: any;
  error?: { code: number; message: string };
}

const detailedTask = shaped<DetailedTask>((v) =>
  typeof v?.taskId === 'string' &&
  ['working', 'completed', 'failed', 'cancelled'].includes(v.status) &&
  typeof v.ttlMs === 'number'
    ? undefined
    : `not a task: ${JSON.stringify(v)}`,
);
const emptyResult = shaped<Record<string, never>>((v) =>
  v && Object.keys(v).filter((k) => k !== '_meta').length === 0 ? undefined : `not empty: ${JSON.stringify(v)}`,
);

/** The v2 client on the modern era, declaring the Tasks extension in every request's client capabilities. */
async function connectV2(h: TestHerald, token: string) {
  const client = new ClientV2({ name: 'herald-tasks-v2', version: '2.0.0' }, {
    capabilities: { extensions: { [TASKS]: {} } },
    versionNegotiation: { mode: { pin: MODERN } },
  } as never);
  await client.connect(
    new TransportV2(new URL(h.url + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return {
    client,
    get: (taskId: string) =>
      client.request({ method: 'tasks/get', params: { taskId } } as never, detailedTask) as Promise<DetailedTask>,
    cancel: (taskId: string) =>
      client.request({ method: 'tasks/cancel', params: { taskId } } as never, emptyResult) as Promise<
        Record<string, unknown>
      >,
    /** Polls as the task asks (pollIntervalMs) until it is final. */
    async settle(taskId: string): Promise<DetailedTask> {
      for (;;) {
        const task = (await client.request(
          { method: 'tasks/get', params: { taskId } } as never,
          detailedTask,
        )) as DetailedTask;
        if (task.status !== 'working') return task;
        await new Promise((resolve) => setTimeout(resolve, Math.min(task.pollIntervalMs, 100)));
      }
    },
  };
}

async function connectV1(h: TestHerald, token: string) {
  const client = new ClientV1({ name: 'herald-tasks-v1', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(h.url + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function postCount(h: TestHerald, account: SeededAccount, label: string): Promise<number> {
  const row = await h.herald
    .db('posts')
    .where({ account_id: account.accountId })
    .andWhere('text', 'like', `${label} %`)
    .count({ n: '*' })
    .first();
  return Number(row!.n);
}

/** A file origin that holds its answer until released: work that cannot be interrupted, mid-flight. */
async function startHeldOrigin() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const requested = new Promise<void>((resolve) => (asked = resolve));
  const server = http.createServer(async (_req, res) => {
    asked();
    await released;
    res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, ORIGIN_HOST, resolve));
  return {
    base: `http://${ORIGIN_HOST}:${(server.address() as AddressInfo).port}`,
    requested,
    release,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`MCP tasks (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let second: TestHerald;
  let origin: Awaited<ReturnType<typeof startImageOrigin>>;
  let account: SeededAccount;
  let other: SeededAccount;
  let wide: SeededAccount;
  before(async () => {
    origin = await startImageOrigin();
    // The image origin for imports is on loopback, which the SSRF guard refuses unless it is listed.
    h = await startTestHerald({ rateLimits: HIGH_BUDGETS, outboundAllowHosts: [ORIGIN_HOST] });
    // A second instance on the same database, as behind a load balancer.
    second = await startTestHerald({
      rateLimits: HIGH_BUDGETS,
      outboundAllowHosts: [ORIGIN_HOST],
      dataDir: h.config.dataDir,
      databaseUrl: h.config.databaseUrl,
    });
    account = await h.seedAccount({ channels: 2 });
    other = await h.seedAccount({ channels: 2 });
    wide = await h.seedAccount({ channels: 50 });
  });
  after(async () => {
    await second?.close();
    await h?.close();
    await origin?.close();
  });

  describe('2025-11-25 (core tasks, the 1.x client)', () => {
    it(
      'initialize declares tasks and tools/list marks the four long tools optional; ' + 'earlier revisions see neither',
      async () => {
        const client = await connectV1(h, account.apiKey);
        try {
          assert.deepEqual(client.getServerCapabilities()?.tasks, {
            list: {},
            cancel: {},
            requests: { tools: { call: {} } },
          });
          const tools = (await client.listTools()).tools;
          assert.deepEqual(
            tools.filter((t) => t.execution).map((t) => [t.name, t.execution!.taskSupport]),
            TASK_TOOLS.map((name) => [name, 'optional']),
          );
        } finally {
          await client.close();
        }
        const older = await legacy(h, account.apiKey, 'tools/list', {}, '2025-06-18');
        assert.equal(older.body.result.tools.filter((t: { execution?: unknown }) => t.execution).length, 0);
      },
    );

    it(
      'bulk_schedule of 100 entries runs as a task: ' +
        'created, polled with its progress, listed, its result from tasks/result',
      async () => {
        const client = await connectV1(h, account.apiKey);
        try {
          await client.listTools();
          const messages: any[] = [];
          for await (const message of client.experimental.tasks.callToolStream(
            { name: 'bulk_schedule', arguments: { posts: bulkEntries(account, 100, 'v1-bulk') } },
            undefined,
            { task: { ttl: 120_000 } },
          )) {
            messages.push(message);
          }
          assert.equal(messages[0].type, 'taskCreated');
          const created = messages[0].task;
          assert.equal(created.status, 'working');
          assert.equal(created.ttl, 120_000);
          assert.equal(created.pollInterval, 1000);
          assert.equal(created.statusMessage, '0 of 100 entries done');
          assert.ok(messages.slice(1, -1).every((m) => m.type === 'taskStatus'));
          const last = messages[messages.length - 1];
          assert.equal(last.type, 'result', JSON.stringify(last));
          assert.deepEqual(last.result.structuredContent.summary, { succeeded: 100, failed: 0 });
          assert.deepEqual(last.result._meta, { 'io.modelcontextprotocol/related-task': { taskId: created.taskId } });
          assert.equal(await postCount(h, account, 'v1-bulk'), 100);

          const task = await client.experimental.tasks.getTask(created.taskId);
          assert.equal(task.status, 'completed');
          assert.equal(task.createdAt, created.createdAt);
          assert.ok(Date.parse(task.lastUpdatedAt) >= Date.parse(task.createdAt));
          const listed = await client.experimental.tasks.listTasks();
          assert.ok(listed.tasks.some((t) => t.taskId === created.taskId && t.status === 'completed'));
        } finally {
          await client.close();
        }
      },
    );

    it(
      'import_media_from_url as a task ends with the media item; ' +
        'a refused one is a failed task whose result says why',
      async () => {
        const client = await connectV1(h, account.apiKey);
        try {
          await client.listTools();
          const run = async (url: string) => {
            const messages: any[] = [];
            for await (const message of client.experimental.tasks.callToolStream({
              name: 'import_media_from_url',
              arguments: { url },
            }))
              messages.push(message);
            return messages;
          };
          const ok = await run(`${origin.base}/photo.png`);
          assert.equal(ok[0].type, 'taskCreated');
          assert.equal(ok[ok.length - 1].result.structuredContent.data.contentType, 'image/png');

          const missing = await run(`${origin.base}/missing.png`);
          const taskId = missing[0].task.taskId;
          assert.equal(
            (await client.experimental.tasks.getTask(taskId)).status,
            'failed',
            'a tool result with isError is a failed task in 2025-11-25',
          );
          const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
          assert.equal(result.isError, true, 'tasks/result answers what tools/call would have');
        } finally {
          await client.close();
        }
      },
    );

    it(
      'cancelling bulk_schedule stops it between entries; ' + 'the task stays cancelled and says how far it got',
      async () => {
        const client = await connectV1(h, wide.apiKey);
        try {
          const created = await legacy(h, wide.apiKey, 'tools/call', {
            name: 'bulk_schedule',
            arguments: { posts: heavyBulk(wide, 'v1-cancel') },
            task: {},
          });
          const taskId = created.body.result.task.taskId;
          await until(
            () => client.experimental.tasks.getTask(taskId),
            (t) => /^[1-9]\d* of 100 entries done/.test(t.statusMessage ?? ''),
            'the first entries',
          );
          const cancelled = await client.experimental.tasks.cancelTask(taskId);
          assert.equal(cancelled.status, 'cancelled', 'the task is cancelled before the answer');
          const stopped = await until(
            () => client.experimental.tasks.getTask(taskId),
            (t) => /stopped after/.test(t.statusMessage ?? ''),
            'the work to stop',
          );
          assert.equal(stopped.status, 'cancelled');
          const done = Number(/stopped after: (\d+) of 100 entries done/.exec(stopped.statusMessage!)![1]);
          assert.ok(done > 0 && done < 100, stopped.statusMessage);
          assert.equal(
            await postCount(h, wide, 'v1-cancel'),
            done * 50,
            'the entries before the cancel stay, none after',
          );
          const result = await legacy(h, wide.apiKey, 'tasks/result', { taskId });
          assert.equal(result.body.error.code, -32602);
          assert.match(result.body.error.message, /was cancelled and has no result/);
        } finally {
          await client.close();
        }
      },
    );
  });

  describe('2026-07-28 (the io.modelcontextprotocol/tasks extension, the v2 client)', () => {
    it('server/discover advertises the extension', async () => {
      const discovered = await modern(h, account.apiKey, 'server/discover', {});
      assert.deepEqual(discovered.body.result.capabilities.extensions, { [TASKS]: {} });
    });

    it(
      'bulk_schedule of 100 entries from a declaring client is a task; ' +
        'the v2 client polls it to its inlined result',
      async () => {
        const created = await modern(h, account.apiKey, 'tools/call', {
          name: 'bulk_schedule',
          arguments: { posts: bulkEntries(account, 100, 'v2-bulk') },
        });
        const handle = created.body.result;
        assert.equal(handle.resultType, 'task');
        assert.equal(handle.status, 'working');
        assert.equal(handle.ttlMs, 3_600_000);
        assert.equal(handle.pollIntervalMs, 1000);
        assert.deepEqual(handle._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
        assert.equal(handle.task, undefined, 'the modern handle is the Task itself, not wrapped');
        assert.equal(handle.ttl, undefined);

        const v2 = await connectV2(h, account.apiKey);
        try {
          const task = await v2.settle(handle.taskId);
          assert.equal(task.status, 'completed');
          assert.deepEqual(task.result.structuredContent.summary, { succeeded: 100, failed: 0 });
          assert.equal(task.result.isError, undefined);
          assert.equal(await postCount(h, account, 'v2-bulk'), 100);
        } finally {
          await v2.client.close();
        }
      },
    );

    it(
      'the server decides: a short bulk_schedule, ' +
        'or any call from a client without the extension, answers at once',
      async () => {
        const short = await modern(h, account.apiKey, 'tools/call', {
          name: 'bulk_schedule',
          arguments: { posts: bulkEntries(account, 2, 'v2-short') },
        });
        assert.equal(short.body.result.resultType, 'complete');
        assert.deepEqual(short.body.result.structuredContent.summary, { succeeded: 2, failed: 0 });
        const undeclared = await modern(
          h,
          account.apiKey,
          'tools/call',
          { name: 'bulk_schedule', arguments: { posts: bulkEntries(account, 100, 'v2-sync') } },
          { tasks: false },
        );
        assert.equal(
          undeclared.body.result.resultType,
          'complete',
          'never a task for a client that did not declare the extension',
        );
        assert.deepEqual(undeclared.body.result.structuredContent.summary, { succeeded: 100, failed: 0 });
        const plain = new ClientV2(
          { name: 'herald-plain-v2', version: '2.0.0' },
          { versionNegotiation: { mode: { pin: MODERN } } },
        );
        await plain.connect(
          new TransportV2(new URL(h.url + '/mcp'), {
            requestInit: { headers: { Authorization: `Bearer ${account.apiKey}` } },
          }),
        );
        try {
          const answered = await plain.callTool({
            name: 'bulk_schedule',
            arguments: { posts: bulkEntries(account, 100, 'v2-plain') },
          });
          assert.deepEqual(
            (answered.structuredContent as { summary: unknown }).summary,
            { succeeded: 100, failed: 0 },
            'the v2 client as it comes declares no extension',
          );
        } finally {
          await plain.close();
        }
        const v1Era = await legacy(h, account.apiKey, 'tools/call', {
          name: 'import_media_from_url',
          arguments: { url: `${origin.base}/photo.png` },
        });
        assert.equal(
          v1Era.body.result.structuredContent.data.contentType,
          'image/png',
          'without params.task, 2025-11-25 answers at once too',
        );
      },
    );

    it('import_media_from_url is a task; cancelled mid-fetch it runs to its end and the task says so', async () => {
      const held = await startHeldOrigin();
      const v2 = await connectV2(h, account.apiKey);
      try {
        const created = await modern(h, account.apiKey, 'tools/call', {
          name: 'import_media_from_url',
          arguments: { url: `${held.base}/slow.png` },
        });
        const taskId = created.body.result.taskId;
        assert.equal(created.body.result.resultType, 'task');
        await held.requested;
        const working = await v2.get(taskId);
        assert.equal(working.status, 'working');
        assert.match(working.statusMessage!, /Fetching .*slow\.png/);
        assert.deepEqual(Object.keys(await v2.cancel(taskId)), ['_meta'], 'an empty acknowledgement');
        assert.equal((await v2.get(taskId)).status, 'cancelled');
        held.release();
        const after = await until(
          () => v2.get(taskId),
          (t) => /could not be stopped/.test(t.statusMessage ?? ''),
          'the fetch to end',
        );
        assert.equal(after.status, 'cancelled', 'a cancelled task stays cancelled');
        assert.equal(after.result, undefined);
      } finally {
        held.release();
        await v2.client.close();
        await held.close();
      }
    });

    it(
      'a status message longer than its column is shortened, ' + 'never refused (a long URL in "Fetching ...")',
      async () => {
        const url = `${origin.base}/photo.png?${'q'.repeat(1900)}`;
        const created = await modern(h, account.apiKey, 'tools/call', {
          name: 'import_media_from_url',
          arguments: { url },
        });
        assert.equal(created.body.result.resultType, 'task', JSON.stringify(created.body).slice(0, 300));
        assert.ok(created.body.result.statusMessage.length <= 1000);
        const v2 = await connectV2(h, account.apiKey);
        try {
          assert.equal((await v2.settle(created.body.result.taskId)).status, 'completed');
        } finally {
          await v2.client.close();
        }
      },
    );

    it(
      'a task silent for ten minutes lost its instance: ' + 'it fails with an internal error, and stays failed',
      async () => {
        const held = await startHeldOrigin();
        const v2 = await connectV2(h, account.apiKey);
        try {
          const created = await modern(h, account.apiKey, 'tools/call', {
            name: 'import_media_from_url',
            arguments: { url: `${held.base}/lost.png` },
          });
          const taskId = created.body.result.taskId;
          await held.requested;
          assert.equal((await v2.get(taskId)).status, 'working');
          await h.herald
            .db('mcp_tasks')
            .where({ id: taskId })
            .update({ updated_at: Date.now() - 10 * 60_000 - 1_000 });
          const failed = await v2.get(taskId);
          assert.equal(failed.status, 'failed');
          assert.equal(failed.error!.code, -32603);
          assert.match(failed.statusMessage!, /instance running this import_media_from_url stopped/);
          const result = await legacy(h, account.apiKey, 'tasks/result', { taskId });
          assert.equal(result.body.error.code, -32603, 'tasks/result answers the error the task failed with');

          const media = () =>
            h.herald
              .db('media')
              .where({ account_id: account.accountId })
              .andWhere('source_url', 'like', '%lost.png')
              .count({ n: '*' })
              .first();
          held.release();
          await until(media, (row) => Number(row!.n) === 1, 'the fetch to end after all');
          assert.equal((await v2.get(taskId)).status, 'failed', 'a final state never changes');
        } finally {
          held.release();
          await v2.client.close();
          await held.close();
        }
      },
    );

    it('generate_image is a task from a declaring client, polled to its media item', async () => {
      const created = await modern(h, account.apiKey, 'tools/call', {
        name: 'generate_image',
        arguments: { prompt: 'a lighthouse' },
      });
      assert.equal(created.body.result.resultType, 'task');
      assert.equal(created.body.result.statusMessage, 'Generating the image');
      const v2 = await connectV2(h, account.apiKey);
      try {
        const task = await v2.settle(created.body.result.taskId);
        assert.equal(task.status, 'completed');
        assert.ok(task.result.structuredContent.data.id);
      } finally {
        await v2.client.close();
      }
    });

    it('complete_media_upload answers at once for a small file and with a task for a large video', async () => {
      const upload = async (fileName: string, contentType: string, bytes: Buffer) => {
        const started = await modern(h, account.apiKey, 'tools/call', {
          name: 'create_media_upload',
          arguments: { fileName, contentType, sizeBytes: bytes.length },
        });
        assert.equal(started.body.result.resultType, 'complete', 'creating an upload never takes long');
        const { uploadId, uploadUrl, headers } = started.body.result.structuredContent;
        assert.equal((await fetch(uploadUrl, { method: 'PUT', headers, body: new Uint8Array(bytes) })).status, 200);
        return modern(h, account.apiKey, 'tools/call', { name: 'complete_media_upload', arguments: { uploadId } });
      };
      const small = await upload('small.png', 'image/png', TINY_PNG);
      assert.equal(small.body.result.resultType, 'complete');
      assert.equal(small.body.result.structuredContent.data.kind, 'image');

      const video = Buffer.alloc(50 * 1024 * 1024);
      Buffer.from('00000018667479706d703432000000006d70343269736f6d', 'hex').copy(video);
      const large = await upload('large.mp4', 'video/mp4', video);
      assert.equal(large.body.result.resultType, 'task', JSON.stringify(large.body).slice(0, 500));
      const v2 = await connectV2(h, account.apiKey);
      try {
        const task = await v2.settle(large.body.result.taskId);
        assert.equal(task.status, 'completed');
        assert.equal(task.result.structuredContent.data.kind, 'video', JSON.stringify(task.result).slice(0, 500));
      } finally {
        await v2.client.close();
      }
    });
  });

  describe('any instance answers for any task', () => {
    it(
      'a task started through one instance is polled, ' +
        'and another cancelled, through a second on the same database',
      async () => {
        const created = await modern(h, account.apiKey, 'tools/call', {
          name: 'bulk_schedule',
          arguments: { posts: bulkEntries(account, 100, 'two-a') },
        });
        const v2 = await connectV2(second, account.apiKey);
        try {
          const task = await v2.settle(created.body.result.taskId);
          assert.equal(task.status, 'completed');
          assert.equal(task.createdAt, created.body.result.createdAt);
          assert.deepEqual(task.result.structuredContent.summary, { succeeded: 100, failed: 0 });

          const running = await legacy(h, wide.apiKey, 'tools/call', {
            name: 'bulk_schedule',
            arguments: { posts: heavyBulk(wide, 'two-b') },
            task: {},
          });
          const taskId = running.body.result.task.taskId;
          const read = () => legacy(second, wide.apiKey, 'tasks/get', { taskId }).then((r) => r.body.result);
          await until(read, (t) => /^[1-9]\d* of 100/.test(t.statusMessage), 'progress seen from the second instance');
          const cancelled = await legacy(second, wide.apiKey, 'tasks/cancel', { taskId });
          assert.equal(cancelled.body.result.status, 'cancelled');
          const stopped = await until(
            read,
            (t) => /stopped after/.test(t.statusMessage),
            'the first instance to stop the work',
          );
          const done = Number(/stopped after: (\d+) of 100/.exec(stopped.statusMessage)![1]);
          assert.ok(done < 100, stopped.statusMessage);
          assert.equal(await postCount(h, wide, 'two-b'), done * 50);
        } finally {
          await v2.client.close();
        }
      },
    );
  });

  describe('edge cases (raw JSON-RPC)', () => {
    let finished: string;
    before(async () => {
      const created = await legacy(h, account.apiKey, 'tools/call', {
        name: 'bulk_schedule',
        arguments: { posts: bulkEntries(account, 1, 'edge') },
        task: {},
      });
      finished = created.body.result.task.taskId;
      await until(
        () => legacy(h, account.apiKey, 'tasks/get', { taskId: finished }),
        (r) => r.body.result.status === 'completed',
        'the edge task',
      );
    });

    it('an unknown task id is invalid params (-32602) for every task method of both eras', async () => {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        const res = await legacy(h, account.apiKey, method, { taskId: 'no-such-task' });
        assert.equal(res.body.error.code, -32602, method);
        assert.match(res.body.error.message, /not found/, method);
      }
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const res = await modern(h, account.apiKey, method, {
          taskId: 'no-such-task',
          ...(method === 'tasks/update' ? { inputResponses: {} } : {}),
        });
        assert.equal(res.body.error.code, -32602, method);
      }
      const badCursor = await legacy(h, account.apiKey, 'tasks/list', { cursor: 'not-a-cursor' });
      assert.equal(badCursor.body.error.code, -32602);
      assert.match(badCursor.body.error.message, /nextCursor/);
      const missing = await legacy(h, account.apiKey, 'tasks/get', {});
      assert.equal(missing.body.error.code, -32602);
      assert.match(missing.body.error.message, /params\.taskId/);
    });

    it("another account's task, or another key's of the same account, does not exist for the caller", async () => {
      const otherKey = await h.createKey(account, ['read_profile', 'manage_post']);
      for (const token of [other.apiKey, otherKey]) {
        for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
          const res = await legacy(h, token, method, { taskId: finished });
          assert.equal(res.body.error.code, -32602, method);
        }
        assert.equal((await modern(h, token, 'tasks/get', { taskId: finished })).body.error.code, -32602);
        assert.equal((await modern(h, token, 'tasks/cancel', { taskId: finished })).body.error.code, -32602);
        const listed = await legacy(h, token, 'tasks/list', {});
        assert.ok(!listed.body.result.tasks.some((t: { taskId: string }) => t.taskId === finished));
      }
      assert.equal(
        (await legacy(h, account.apiKey, 'tasks/get', { taskId: finished })).body.result.status,
        'completed',
        'the owner still sees it',
      );
    });

    it(
      "an OAuth grant's tasks follow its refreshed tokens, " +
        'and no other grant of the same client and person sees them',
      async () => {
        const client = await registerClient(h, { client_name: 'Tasks client' });
        const grant = async () => {
          const { verifier, challenge } = pkcePair();
          const redirect = await new FormUser(h.url).authorize(
            authorizeUrl(h, {
              response_type: 'code',
              client_id: client.client_id,
              redirect_uri: REDIRECT_URI,
              code_challenge: challenge,
              code_challenge_method: 'S256',
              resource: h.url + '/mcp',
            }),
            account,
          );
          const exchanged = await tokenRequest(h, {
            grant_type: 'authorization_code',
            code: redirect.searchParams.get('code')!,
            code_verifier: verifier,
            redirect_uri: REDIRECT_URI,
            client_id: client.client_id,
            resource: h.url + '/mcp',
          });
          assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
          return exchanged.body as { access_token: string; refresh_token: string };
        };
        const first = await grant();
        const created = await modern(h, first.access_token, 'tools/call', {
          name: 'import_media_from_url',
          arguments: { url: `${origin.base}/photo.png` },
        });
        const taskId = created.body.result.taskId;
        assert.equal(created.body.result.resultType, 'task');

        const refreshed = await tokenRequest(h, {
          grant_type: 'refresh_token',
          refresh_token: first.refresh_token,
          client_id: client.client_id,
          resource: h.url + '/mcp',
        });
        assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
        assert.notEqual(refreshed.body.access_token, first.access_token);
        const seen = await until(
          () => modern(h, refreshed.body.access_token, 'tasks/get', { taskId }),
          (r) => r.body.result?.status === 'completed',
          'the OAuth task',
        );
        assert.equal(seen.body.result.result.structuredContent.data.contentType, 'image/png');

        const second = await grant();
        assert.equal((await modern(h, second.access_token, 'tasks/get', { taskId })).body.error.code, -32602);
        assert.equal(
          (await modern(h, account.apiKey, 'tasks/get', { taskId })).body.error.code,
          -32602,
          'nor an API key of the same account',
        );
      },
    );

    it(
      'cancelling a finished task: 2025-11-25 refuses with -32602, ' + '2026-07-28 acknowledges and nothing changes',
      async () => {
        const refused = await legacy(h, account.apiKey, 'tasks/cancel', { taskId: finished });
        assert.equal(refused.body.error.code, -32602);
        assert.equal(refused.body.error.message, "Cannot cancel task: already in terminal status 'completed'.");
        const acknowledged = await modern(h, account.apiKey, 'tasks/cancel', { taskId: finished });
        assert.equal(acknowledged.body.result.resultType, 'complete');
        assert.deepEqual(Object.keys(acknowledged.body.result).sort(), ['_meta', 'resultType']);
        const still = (await modern(h, account.apiKey, 'tasks/get', { taskId: finished })).body.result;
        assert.equal(still.status, 'completed');
        assert.equal(still.resultType, 'complete');
        assert.deepEqual(still.result.structuredContent.summary, { succeeded: 1, failed: 0 });
      },
    );

    it(
      'the modern task methods need the extension declared (-32021) ' + 'and Mcp-Name equal to the task id (-32020)',
      async () => {
        const undeclared = await modern(h, account.apiKey, 'tasks/get', { taskId: finished }, { tasks: false });
        assert.equal(undeclared.body.error.code, -32021);
        assert.deepEqual(undeclared.body.error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
        const mismatched = await modern(
          h,
          account.apiKey,
          'tasks/get',
          { taskId: finished },
          { headers: { 'mcp-name': 'another-task' } },
        );
        assert.equal(mismatched.status, 400);
        assert.equal(mismatched.body.error.code, -32020);
        assert.match(mismatched.body.error.message, /params\.taskId/);
        assert.equal(
          (await modern(h, account.apiKey, 'tasks/list', {})).body.error.code,
          -32601,
          'the extension has no tasks/list',
        );
        assert.equal(
          (await modern(h, account.apiKey, 'tasks/update', { taskId: finished, inputResponses: {} })).body.result
            .resultType,
          'complete',
        );
      },
    );

    it('before 2025-11-25 there are no tasks; params.task on a tool that does not run as one is -32601', async () => {
      const older = await legacy(h, account.apiKey, 'tasks/get', { taskId: finished }, '2025-06-18');
      assert.equal(older.body.error.code, -32601);
      const ignored = await legacy(
        h,
        account.apiKey,
        'tools/call',
        { name: 'get_channels', arguments: {}, task: {} },
        '2025-06-18',
      );
      assert.equal(
        ignored.body.result.structuredContent.data.length,
        2,
        'params.task is ignored where tasks do not exist',
      );
      const refused = await legacy(h, account.apiKey, 'tools/call', { name: 'get_channels', arguments: {}, task: {} });
      assert.equal(refused.body.error.code, -32601);
      assert.match(refused.body.error.message, /taskSupport/);
    });

    it("tasks/list pages the caller's own tasks, newest first, 50 a page", async () => {
      const key = await h.createKey(account, ['read_profile', 'manage_post']);
      const started: string[] = [];
      for (let i = 0; i < 51; i++) {
        const created = await legacy(h, key, 'tools/call', {
          name: 'bulk_schedule',
          arguments: { posts: bulkEntries(account, 1, `paged-${i}`) },
          task: {},
        });
        started.push(created.body.result.task.taskId);
      }
      const first = (await legacy(h, key, 'tasks/list', {})).body.result;
      assert.equal(first.tasks.length, 50);
      assert.equal(typeof first.nextCursor, 'string');
      const second = (await legacy(h, key, 'tasks/list', { cursor: first.nextCursor })).body.result;
      assert.equal(second.nextCursor, undefined);
      const listed = [...first.tasks, ...second.tasks].map((t: { taskId: string }) => t.taskId);
      assert.deepEqual([...listed].sort(), [...started].sort(), "every task once, and only this key's");
      const created = [...first.tasks, ...second.tasks].map((t: { createdAt: string }) => Date.parse(t.createdAt));
      assert.deepEqual(
        created,
        [...created].sort((x, y) => y - x),
      );
      await until(
        () => postCount(h, account, 'paged-50'),
        (n) => n === 1,
        'the last paged task',
      );
    });

    it('an expired task is gone at once and purged by housekeeping', async () => {
      const created = await legacy(h, account.apiKey, 'tools/call', {
        name: 'bulk_schedule',
        arguments: { posts: bulkEntries(account, 1, 'expiring') },
        task: { ttl: 60_000 },
      });
      const taskId = created.body.result.task.taskId;
      assert.equal(created.body.result.task.ttl, 60_000);
      await until(
        () => legacy(h, account.apiKey, 'tasks/get', { taskId }),
        (r) => r.body.result?.status === 'completed',
        'the expiring task',
      );
      const purgedEarly = await purgeExpired(h.deps);
      assert.equal(
        await h.herald.db('mcp_tasks').where({ id: taskId }).first().then(Boolean),
        true,
        'a live task is kept',
      );
      assert.equal(typeof purgedEarly.mcpTasks, 'number');

      const later = { ...h.deps, now: () => Date.now() + 61_000 };
      const purged = await purgeExpired(later);
      assert.ok(purged.mcpTasks >= 1);
      assert.equal(await h.herald.db('mcp_tasks').where({ id: taskId }).first(), undefined);
      const gone = await legacy(h, account.apiKey, 'tasks/get', { taskId });
      assert.equal(gone.body.error.code, -32602);
    });

    it(
      'a ttl past its end hides the task before housekeeping runs; ' +
        'a requested ttl is held between a minute and a day',
      async () => {
        const created = await legacy(h, account.apiKey, 'tools/call', {
          name: 'bulk_schedule',
          arguments: { posts: bulkEntries(account, 1, 'clamped') },
          task: { ttl: 10 },
        });
        const taskId = created.body.result.task.taskId;
        assert.equal(created.body.result.task.ttl, 60_000);
        await h.herald
          .db('mcp_tasks')
          .where({ id: taskId })
          .update({ expires_at: Date.now() - 1 });
        assert.equal((await legacy(h, account.apiKey, 'tasks/get', { taskId })).body.error.code, -32602);
        assert.equal((await modern(h, account.apiKey, 'tasks/get', { taskId })).body.error.code, -32602);
        const long = await legacy(h, account.apiKey, 'tools/call', {
          name: 'bulk_schedule',
          arguments: { posts: bulkEntries(account, 1, 'long') },
          task: { ttl: 10 * 86_400_000 },
        });
        assert.equal(long.body.result.task.ttl, 86_400_000);
        const longId = long.body.result.task.taskId;
        await until(
          () => legacy(h, account.apiKey, 'tasks/get', { taskId: longId }),
          (r) => r.body.result.status === 'completed',
          'the long task',
        );
        await until(
          () => postCount(h, account, 'clamped'),
          (n) => n === 1,
          'the hidden task to do its work',
        );
      },
    );
  });
});

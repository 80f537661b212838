/**
 * The AI helpers through the official MCP SDK client, on both providers: the built-in offline one, and the
 * OpenAI-compatible one against a local fake speaking the real /v1/chat/completions and /v1/images/generations
 * wire format. Results name their provider, respect network limits and count against the REST write budget.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadConfig } from '../../src/config.js';
import { countText } from '../../src/domain/networks/text-length.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectSdkClient } from '../mcp/support.js';
import { TINY_PNG } from '../media/fixtures.js';

function ok(result: Awaited<ReturnType<Client['callTool']>>): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent;
}

function failure(result: Awaited<ReturnType<Client['callTool']>>): string {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result.structuredContent)}`);
  return (result.content as { text: string }[])[0].text;
}

const LAUNCH =
  'We just launched Herald, a self-hosted social publishing tool for small teams. ' +
  'Schedule posts to LinkedIn and Mastodon from one shared calendar.';
const GENEROUS = {
  restReadsPerMinute: 100_000,
  restWritesPerMinute: 100_000,
  accountPerHour: 1_000_000,
  mcpPerTokenPerMinute: 100_000,
};

describe(`AI helpers, offline provider (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  let client: Client;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    client = await connectSdkClient(h, account.basicKey);
  });
  after(async () => {
    await client.close();
    await h.close();
  });

  it('suggests hashtags from the text’s noun phrases, most relevant first', async () => {
    const result = ok(await client.callTool({ name: 'suggest_hashtags', arguments: { text: LAUNCH, count: 6 } }));
    assert.equal(result.provider, 'herald-offline');
    assert.ok(result.hashtags.length > 2 && result.hashtags.length <= 6);
    for (const tag of result.hashtags) assert.match(tag, /^#[\p{L}\p{N}_]+$/u);
    const lower = result.hashtags.map((t: string) => t.toLowerCase());
    assert.ok(lower.includes('#smallteams'), `small teams is a key phrase: ${result.hashtags}`);
    assert.ok(
      lower.includes('#calendar') || lower.includes('#sharedcalendar'),
      `calendar is a key noun: ${result.hashtags}`,
    );
    assert.ok(!lower.includes('#we') && !lower.includes('#a'), 'no pronouns or articles');
  });

  it('drafts posts from a topic and key points, within the network limit', async () => {
    const prompt =
      `Herald 1.0 is out\n- self-hosted on one small server\n- an MCP server ` +
      `built in\n- ${'works offline with no external accounts '.repeat(12)}`;
    const result = ok(
      await client.callTool({
        name: 'generate_post',
        arguments: { prompt, network: 'x', tone: 'friendly', variants: 3 },
      }),
    );
    assert.equal(result.provider, 'herald-offline');
    assert.equal(result.maxCharacters, 280);
    assert.equal(result.variants.length, 3);
    for (const variant of result.variants) {
      assert.ok([...variant.text].length <= 280, variant.text);
      assert.equal(variant.characters, [...variant.text].length);
      assert.match(variant.text, /Herald 1\.0 is out/);
    }
    assert.notEqual(result.variants[0].text, result.variants[1].text);
    const linkedin = ok(await client.callTool({ name: 'generate_post', arguments: { prompt, network: 'linkedin' } }));
    assert.match(linkedin.variants[0].text, /MCP server built in/);
  });

  it('rewrites shorter and formal for X', async () => {
    const text =
      "We're " +
      `thrilled! ${'We can’t wait to show you the new calendar, it’s great and it works on phones. '.repeat(6)}`;
    const result = ok(
      await client.callTool({ name: 'rewrite', arguments: { text, instruction: 'shorter and formal, for X' } }),
    );
    assert.equal(result.network, 'x');
    assert.ok(result.characters <= 280 && result.characters < [...text].length);
    assert.doesNotMatch(result.text, /We're|!/);
    assert.match(result.text, /We are thrilled/);
  });

  it("fits a rewrite for X to X's weighted count, where CJK characters weigh 2", async () => {
    const text = '新しいカレンダーを公開しました。チーム全員で予定を共有できます。'.repeat(12);
    const result = ok(
      await client.callTool({ name: 'rewrite', arguments: { text, instruction: 'keep it', network: 'x' } }),
    );
    assert.equal(result.maxCharacters, 280);
    assert.ok(countText('x', result.text) <= 280, `${countText('x', result.text)} weighted characters`);
    assert.ok(result.characters > 100, 'still a useful length');
  });

  it('refuses a network Herald has no connector for, naming the ones it has', async () => {
    assert.match(
      failure(await client.callTool({ name: 'generate_post', arguments: { prompt: 'Launch', network: 'friendster' } })),
      /Herald has no connector for network "friendster"; it publishes to sandbox, x, bluesky/,
    );
  });

  it('renders a branded text card PNG into the media library', async () => {
    const result = ok(
      await client.callTool({
        name: 'generate_image',
        arguments: { prompt: 'Herald 1.0: publish everywhere from one place', size: 'landscape' },
      }),
    );
    assert.equal(result.provider, 'herald-offline');
    assert.equal(result.data.contentType, 'image/png');
    assert.deepEqual([result.data.width, result.data.height], [1536, 1024]);
    const file = await fetch(result.data.url);
    assert.equal(file.status, 200);
    assert.equal(
      Buffer.from(await file.arrayBuffer())
        .subarray(1, 4)
        .toString('latin1'),
      'PNG',
    );
  });
});

describe(`AI helpers count against the REST write budget (${TEST_DB})`, () => {
  it('refuses the third AI call in a minute when the write budget is two', async () => {
    const h = await startTestHerald({ rateLimits: { ...GENEROUS, restWritesPerMinute: 2 } });
    try {
      const account = await h.seedAccount();
      const client = await connectSdkClient(h, account.basicKey);
      ok(await client.callTool({ name: 'suggest_hashtags', arguments: { text: LAUNCH } }));
      ok(await client.callTool({ name: 'rewrite', arguments: { text: LAUNCH, instruction: 'shorter' } }));
      assert.match(
        failure(await client.callTool({ name: 'generate_post', arguments: { prompt: LAUNCH } })),
        /REST write budget/,
      );
      const rest = await h.api('POST', '/v1/rest/posts', {
        token: account.apiKey,
        body: { text: 'x', channelIds: account.channelIds, saveAsDraft: true },
      });
      assert.equal(rest.status, 429, 'the AI calls used up the same budget REST writes use');
      await client.close();
    } finally {
      await h.close();
    }
  });

  it('charges the account hour once for an AI call over MCP, not once per budget', async () => {
    const h = await startTestHerald({ rateLimits: { ...GENEROUS, accountPerHour: 1000 } });
    try {
      const account = await h.seedAccount();
      const call = (id: number) =>
        h.api('POST', '/mcp', {
          token: account.basicKey,
          headers: { accept: 'application/json, text/event-stream' },
          body: {
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'suggest_hashtags', arguments: { text: LAUNCH } },
          },
        });
      const first = await call(1);
      const second = await call(2);
      assert.equal(second.body.result.isError, undefined, JSON.stringify(second.body));
      const spent =
        Number(first.headers.get('x-account-ratelimit-remaining')) -
        Number(second.headers.get('x-account-ratelimit-remaining'));
      assert.equal(spent, 1, 'one MCP AI request spends one request of the account hour');
    } finally {
      await h.close();
    }
  });
});

interface FakeCall {
  path: string;
  authorization: string | undefined;
  body: any;
}

/** A fake OpenAI-compatible server: answers like api.openai.com/v1, records what it was sent. */
async function startFakeOpenAi(behaviour: { fail?: boolean; slowMs?: number; longText?: boolean }) {
  const calls: FakeCall[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    calls.push({ path: req.url!, authorization: req.headers.authorization, body });
    if (behaviour.slowMs) await new Promise((resolve) => setTimeout(resolve, behaviour.slowMs));
    if (behaviour.fail) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { message: 'The server had an error while processing your request.', type: 'server_error' },
        }),
      );
      return;
    }
    if (req.url === '/v1/chat/completions') {
      const system: string = body.messages[0].content;
      const content = system.includes('hashtags')
        ? '#SelfHosted #SocialMedia #OpenSource'
        : behaviour.longText
          ? 'Launch day! '.repeat(60)
          : 'Herald 1.0 is out: self-hosted publishing for small teams.';
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    } else if (req.url === '/v1/images/generations') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ created: 1, data: [{ b64_json: TINY_PNG.toString('base64') }] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    calls,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe(`AI helpers, OpenAI-compatible provider against a local fake (${TEST_DB})`, () => {
  async function withProvider(
    behaviour: Parameters<typeof startFakeOpenAi>[0],
    run: (client: Client, fake: Awaited<ReturnType<typeof startFakeOpenAi>>) => Promise<void>,
  ) {
    const fake = await startFakeOpenAi(behaviour);
    const ai = {
      ...loadConfig({}).ai,
      baseUrl: fake.baseUrl,
      apiKey: 'sk-test',
      model: 'llama3.1',
      imageModel: 'dall-e-3',
      timeoutMs: 1_000,
    };
    const h = await startTestHerald({ ai });
    try {
      const account = await h.seedAccount();
      const client = await connectSdkClient(h, account.basicKey);
      await run(client, fake);
      await client.close();
    } finally {
      await h.close();
      await fake.close();
    }
  }

  it('sends chat completions and image generations in the OpenAI wire format and names the provider', async () => {
    await withProvider({}, async (client, fake) => {
      const post = ok(
        await client.callTool({
          name: 'generate_post',
          arguments: { prompt: 'Herald 1.0 launch', network: 'linkedin', tone: 'formal', variants: 2 },
        }),
      );
      assert.equal(post.provider, 'openai-compatible:llama3.1');
      assert.equal(post.variants[0].text, 'Herald 1.0 is out: self-hosted publishing for small teams.');
      const chat = fake.calls[0];
      assert.equal(chat.path, '/v1/chat/completions');
      assert.equal(chat.authorization, 'Bearer sk-test');
      assert.equal(chat.body.model, 'llama3.1');
      assert.deepEqual(
        chat.body.messages.map((m: any) => m.role),
        ['system', 'user'],
      );
      assert.match(chat.body.messages[0].content, /linkedin.*3000 characters.*formal tone/);
      assert.equal(fake.calls.length, 2, 'one request per variant');

      const tags = ok(
        await client.callTool({ name: 'suggest_hashtags', arguments: { text: 'Herald launch', count: 2 } }),
      );
      assert.deepEqual(tags.hashtags, ['#SelfHosted', '#SocialMedia']);

      const image = ok(
        await client.callTool({ name: 'generate_image', arguments: { prompt: 'a lighthouse', size: 'portrait' } }),
      );
      const call = fake.calls.at(-1)!;
      assert.equal(call.path, '/v1/images/generations');
      assert.deepEqual(call.body, {
        model: 'dall-e-3',
        prompt: 'a lighthouse',
        n: 1,
        size: '1024x1536',
        response_format: 'b64_json',
      });
      assert.equal(image.provider, 'openai-compatible:llama3.1');
      assert.equal(image.data.contentType, 'image/png');
    });
  });

  it('cuts provider text that overruns the network limit', async () => {
    await withProvider({ longText: true }, async (client) => {
      const result = ok(
        await client.callTool({
          name: 'rewrite',
          arguments: { text: 'Launch day', instruction: 'more excited', network: 'x' },
        }),
      );
      assert.ok(result.characters <= 280, `${result.characters} characters`);
    });
  });

  it('turns provider errors and timeouts into tool errors saying what happened', async () => {
    await withProvider({ fail: true }, async (client) => {
      assert.match(
        failure(await client.callTool({ name: 'generate_post', arguments: { prompt: 'x' } })),
        /AI provider \(openai-compatible:llama3.1\) failed: The server had an error.*HTTP 500/,
      );
    });
    await withProvider({ slowMs: 3_000 }, async (client) => {
      assert.match(
        failure(await client.callTool({ name: 'suggest_hashtags', arguments: { text: 'x' } })),
        /no answer within 1000 ms/,
      );
    });
  });
});

import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { futureIso, startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectSdkClient } from './support.js';

const IMPLEMENTED = [
  'bulk_schedule', 'create_image_post', 'create_text_post', 'delete_post', 'get_channel', 'get_channels', 'get_filtered_channels',
  'get_paginated_posts', 'get_posts_for_channels', 'get_posts_with_assets', 'get_scheduled_posts', 'get_workspaces',
  'instagram_first_comment', 'location_search', 'update_post',
];

function structured(result: Awaited<ReturnType<Client['callTool']>>): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent;
}

describe(`MCP through the official SDK client (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  let client: Client;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    client = await connectSdkClient(h, account.apiKey);
  });
  after(async () => {
    await client.close();
    await h.close();
  });

  it('initializes on the latest revision and lists every implemented tool with its schemas and annotations', async () => {
    assert.equal(client.getServerVersion()?.name, 'herald');
    assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
    const { tools } = await client.listTools();
    for (const name of IMPLEMENTED) assert.ok(tools.some((t) => t.name === name), `${name} is listed`);
    const create = tools.find((t) => t.name === 'create_text_post')!;
    assert.deepEqual(Object.keys(create.inputSchema.properties ?? {}).slice(0, 5), ['text', 'channelIds', 'isScheduled', 'dateTime', 'saveAsDraft']);
    assert.equal(create.annotations?.readOnlyHint, false);
    assert.equal(tools.find((t) => t.name === 'get_channels')!.annotations?.readOnlyHint, true);
  });

  it('creates a text post now, a scheduled one and a draft, with sourceType mcp', async () => {
    const now = structured(await client.callTool({ name: 'create_text_post', arguments: { text: 'now', channelIds: account.channelIds } }));
    assert.equal(now.data.length, 2);
    assert.equal(now.data[0].sourceType, 'mcp');
    const when = futureIso(120);
    const later = structured(await client.callTool({ name: 'create_text_post', arguments: { text: 'later', channelIds: [account.channelIds[0]], isScheduled: true, dateTime: when } }));
    assert.equal(later.data[0].status, 'scheduled');
    assert.equal(later.data[0].dateTime, when);
    const draft = structured(await client.callTool({ name: 'create_text_post', arguments: { text: 'draft', channelIds: [account.channelIds[0]], saveAsDraft: true } }));
    assert.equal(draft.data[0].isDraft, true);
  });
});

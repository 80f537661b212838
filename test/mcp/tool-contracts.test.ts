/** The 44 tool contracts of SPEC's table, the tools/list paging, and the SDK's typed MCP client. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import { argumentValidators } from '../../generated/mcp/validators.js';
import { createHeraldMcpClient, HeraldToolError } from '../../sdk/src/index.js';
import { servedTools, toolsListPage } from '../../src/mcp/served-tools.js';
import { toolHandlers } from '../../src/mcp/tools/index.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

const SPEC_TOOLS = {
  Posts: [
    'create_text_post',
    'create_image_post',
    'update_post',
    'delete_post',
    'bulk_schedule',
    'get_paginated_posts',
    'get_posts_for_channels',
    'get_posts_with_assets',
    'get_scheduled_posts',
    'queue_reorder',
    'instagram_first_comment',
  ],
  Channels: ['get_channels', 'get_channel', 'get_filtered_channels', 'location_search'],
  Workspaces: ['get_workspaces'],
  Calendars: [
    'get_calendar_view_options',
    'get_shareable_calendars',
    'get_in_app_calendar_url',
    'create_public_calendar_link',
    'update_shareable_calendar',
    'delete_shareable_calendar',
  ],
  Queue: ['queue_pause', 'queue_resume', 'queue_clear'],
  Labels: ['label_list', 'label_create', 'label_apply', 'label_remove', 'bulk_label'],
  Recycling: ['list_collections', 'recycle_post'],
  Approvals: ['approval_list_pending', 'approval_approve', 'approval_reject', 'approval_assign', 'bulk_delete'],
  AI: ['generate_post', 'suggest_hashtags', 'rewrite', 'generate_image'],
  Media: ['create_media_upload', 'complete_media_upload', 'import_media_from_url'],
};
const MANAGE_TEAM = [
  'approval_list_pending',
  'approval_approve',
  'approval_reject',
  'approval_assign',
  'bulk_delete',
  'bulk_label',
];

describe('MCP tool contracts (jsonrpc-schemas/)', () => {
  it('has one file per tool of SPEC, 44 in all, and nothing else', () => {
    const spec = Object.values(SPEC_TOOLS).flat().sort();
    assert.equal(spec.length, 44);
    assert.deepEqual(
      fs.readdirSync('jsonrpc-schemas').sort(),
      spec.map((n) => `${n}.json`),
    );
    assert.deepEqual(toolCatalogue.map((t) => t.name).sort(), spec);
  });

  it('asks manage_team for exactly the six team tools', () => {
    assert.deepEqual(
      toolCatalogue
        .filter((t) => t.scope === 'manage_team')
        .map((t) => t.name)
        .sort(),
      [...MANAGE_TEAM].sort(),
    );
  });

  it('publishes closed, self-contained object schemas', () => {
    for (const tool of toolCatalogue) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      assert.equal(tool.outputSchema.type, 'object', tool.name);
      assert.ok(!JSON.stringify(tool).includes('openapi.yaml'), `${tool.name} has no external $ref`);
    }
  });

  it('uses SPEC arguments as given and defaults dryRun to a report', () => {
    const props = (name: string) =>
      Object.keys((toolCatalogue.find((t) => t.name === name)!.inputSchema.properties ?? {}) as object);
    assert.deepEqual(props('create_text_post').slice(0, 5), [
      'text',
      'channelIds',
      'isScheduled',
      'dateTime',
      'saveAsDraft',
    ]);
    assert.ok(props('get_posts_for_channels').includes('livePosts'));
    for (const name of ['bulk_delete', 'queue_clear'] as const) {
      const args: Record<string, unknown> = name === 'bulk_delete' ? { postIds: ['p'] } : { channelId: 'c' };
      assert.equal(argumentValidators[name](args), true);
      assert.equal(args.dryRun, true, `${name} reports unless dryRun is false`);
    }
  });

  it('pages tools/list with an opaque cursor', () => {
    const tools = servedTools(toolHandlers({} as never), '/mcp');
    const first = toolsListPage(tools, undefined, 10);
    assert.equal(first.tools.length, 10);
    assert.ok(!('scope' in first.tools[0]));
    const seen = first.tools.map((t) => t.name);
    for (let cursor = first.nextCursor; cursor; ) {
      const page = toolsListPage(tools, cursor, 10);
      assert.ok(page.tools.length > 0 && page.tools.length <= 10);
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, [...tools.keys()]);
    assert.ok(tools.size > 10, 'more than one page');
  });
});

describe(`the SDK's typed MCP client (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h.close());

  it('calls tools with typed arguments and results, and throws HeraldToolError on a refusal', async () => {
    const mcp = createHeraldMcpClient({ url: h.url + '/mcp', token: account.apiKey });
    const { data: channels } = await mcp.callTool('get_channels', {});
    const { data: posts } = await mcp.callTool('create_text_post', {
      text: 'typed',
      channelIds: [channels[0].id],
      saveAsDraft: true,
    });
    assert.equal(posts[0].isDraft, true);
    assert.ok((await mcp.listTools()).includes('get_workspaces'));
    await assert.rejects(mcp.callTool('get_channel', { channelId: 'missing' }), HeraldToolError);
    // @ts-expect-error channelIds is required
    await assert.rejects(mcp.callTool('create_text_post', { text: 'x' }), /channelIds/);
  });
});

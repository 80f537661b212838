import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { futureIso, startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { newId } from '../../src/domain/ids.js';
import { insertLivePost } from '../support/posts.js';
import { connectSdkClient } from './support.js';

/** The tools of issue 4 (posts, channels, workspaces): each is called below. */
const IMPLEMENTED = [
  'bulk_schedule',
  'create_image_post',
  'create_text_post',
  'delete_post',
  'get_channel',
  'get_channels',
  'get_filtered_channels',
  'get_paginated_posts',
  'get_posts_for_channels',
  'get_posts_with_assets',
  'get_scheduled_posts',
  'get_workspaces',
  'instagram_first_comment',
  'location_search',
  'update_post',
];

type CallResult = Awaited<ReturnType<Client['callTool']>>;

function structured(result: CallResult): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  assert.deepEqual(JSON.parse((result.content as { text: string }[])[0].text), result.structuredContent);
  return result.structuredContent;
}

function refusal(result: CallResult): string {
  assert.equal(result.isError, true, JSON.stringify(result));
  return (result.content as { text: string }[])[0].text;
}

describe(`MCP tools through the official SDK client (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount({ channels: 3 });
    client = await connectSdkClient(h, account.apiKey);
  });
  after(async () => {
    await client.close();
    await h.close();
  });

  it('initializes and lists every implemented tool with schemas, annotations and no unimplemented ones', async () => {
    assert.equal(client.getServerVersion()?.name, 'herald');
    assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
    const { tools } = await client.listTools();
    for (const name of IMPLEMENTED)
      assert.ok(
        tools.some((t) => t.name === name),
        `${name} is listed`,
      );
    const create = tools.find((t) => t.name === 'create_text_post')!;
    assert.deepEqual(Object.keys(create.inputSchema.properties ?? {}).slice(0, 5), [
      'text',
      'channelIds',
      'isScheduled',
      'dateTime',
      'saveAsDraft',
    ]);
    assert.equal((create.inputSchema as { additionalProperties?: boolean }).additionalProperties, false);
    assert.equal(create.outputSchema?.type, 'object');
    assert.deepEqual(create.annotations, {
      title: 'Create a text post',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    assert.equal(tools.find((t) => t.name === 'get_channels')!.annotations?.readOnlyHint, true);
  });

  it('create_text_post publishes now, schedules, or drafts; source mcp', async () => {
    const now = structured(await call('create_text_post', { text: 'now', channelIds: account.channelIds.slice(0, 2) }));
    assert.equal(now.data.length, 2);
    assert.deepEqual(
      now.data.map((p: any) => p.sourceType),
      ['mcp', 'mcp'],
    );
    assert.equal(now.data[0].isScheduled, false);
    const when = futureIso(120);
    const later = structured(
      await call('create_text_post', {
        text: 'later',
        channelIds: [account.channelIds[0]],
        isScheduled: true,
        dateTime: when,
      }),
    );
    assert.equal(later.data[0].status, 'scheduled');
    assert.equal(later.data[0].dateTime, when);
    const draft = structured(
      await call('create_text_post', { text: 'draft', channelIds: [account.channelIds[0]], saveAsDraft: true }),
    );
    assert.equal(draft.data[0].isDraft, true);
  });

  it('create_text_post in an approval workspace holds the post as PENDING and still succeeds', async () => {
    const strict = await h.seedAccount({ approvalRequired: true, channels: 1 });
    const other = await connectSdkClient(h, strict.apiKey);
    try {
      const held = structured(
        await other.callTool({ name: 'create_text_post', arguments: { text: 'held', channelIds: strict.channelIds } }),
      );
      assert.equal(held.data[0].approvalStatus, 'PENDING');
    } finally {
      await other.close();
    }
  });

  it('create_image_post needs public image links and carries them', async () => {
    const made = structured(
      await call('create_image_post', {
        imageUrls: ['https://cdn.example.com/a.png'],
        channelIds: [account.channelIds[1]],
        text: 'pic',
      }),
    );
    assert.equal(made.data[0].type, 'image');
    assert.deepEqual(made.data[0].imageUrls, ['https://cdn.example.com/a.png']);
    assert.match(
      refusal(await call('create_image_post', { imageUrls: [], channelIds: [account.channelIds[1]] })),
      /imageUrls/,
    );
  });

  it(
    'update_post, instagram_first_comment and delete_post ' +
      'change Herald posts and refuse live ones with an explanation',
    async () => {
      const [post] = structured(
        await call('create_text_post', {
          text: 'v1',
          channelIds: [account.channelIds[0]],
          isScheduled: true,
          dateTime: futureIso(300),
        }),
      ).data;
      const updated = structured(await call('update_post', { postId: post.id, text: 'v2' }));
      assert.equal(updated.data[0].text, 'v2');
      const commented = structured(
        await call('instagram_first_comment', { postId: post.id, text: 'first!', delayMinutes: 5 }),
      );
      assert.deepEqual(commented.data[0].firstComment, { text: 'first!', delayMinutes: 5 });
      assert.deepEqual(structured(await call('delete_post', { postId: post.id })), { id: post.id, deleted: true });
      assert.match(refusal(await call('update_post', { postId: post.id, text: 'v3' })), /not|No/);

      const live = await insertLivePost(h.deps, account, Date.now() - 60_000);
      for (const [tool, args] of [
        ['update_post', { postId: live.id, text: 'x' }],
        ['delete_post', { postId: live.id }],
        ['instagram_first_comment', { postId: live.id, text: 'x' }],
      ] as const) {
        assert.match(refusal(await call(tool, args)), /live post .* read only/, tool);
      }
    },
  );

  it('bulk_schedule answers per entry and does not stop at a failed one', async () => {
    const result = structured(
      await call('bulk_schedule', {
        posts: [
          { text: 'one', channelIds: [account.channelIds[2]], isScheduled: true, dateTime: futureIso(60) },
          { text: 'two', channelIds: ['no-such-channel'], isScheduled: true, dateTime: futureIso(60) },
          { text: 'three', channelIds: [account.channelIds[2]], saveAsDraft: true },
        ],
      }),
    );
    assert.deepEqual(result.summary, { succeeded: 2, failed: 1 });
    assert.deepEqual(
      result.results.map((r: any) => r.ok),
      [true, false, true],
    );
    assert.match(result.results[1].error.message, /posts\[1\]/);
    assert.equal(result.results[0].data[0].sourceType, 'mcp');
  });

  it(
    'lists posts: paginated with live posts advice, ' + 'for channels ("what went out"), with assets, scheduled',
    async () => {
      const fresh = await h.seedAccount({ channels: 1 });
      const c = await connectSdkClient(h, fresh.apiKey);
      try {
        const list = (name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args });
        const channelIds = fresh.channelIds;
        await insertLivePost(h.deps, fresh, Date.now() - 3_600_000);
        // A Herald post the engine already published (the engine does not run in these tests).
        const published = await insertLivePost(h.deps, fresh, Date.now() - 1_800_000, {
          id: newId(),
          isLive: false,
          networkPostId: null,
          metrics: null,
          sourceType: 'api',
          type: 'text',
          text: 'went out',
        });
        const upcoming = structured(
          await list('create_text_post', { text: 'upcoming', channelIds, isScheduled: true, dateTime: futureIso(90) }),
        ).data[0];
        structured(
          await list('create_image_post', {
            imageUrls: ['https://cdn.example.com/b.jpg'],
            channelIds,
            saveAsDraft: true,
          }),
        );

        const page1 = structured(await list('get_paginated_posts', { limit: 2 }));
        assert.equal(page1.data.length, 2);
        assert.equal(page1.paging.hasMore, true);
        assert.deepEqual(page1.meta, { livePostsAvailable: true });
        const page2 = structured(await list('get_paginated_posts', { limit: 2, cursor: page1.paging.nextCursor }));
        assert.equal(page2.data.length, 1);
        assert.match(
          refusal(await list('get_paginated_posts', { limit: 2, livePosts: true, cursor: page1.paging.nextCursor })),
          /Invalid cursor/,
        );

        const all = structured(await list('get_posts_for_channels', { channelIds }));
        assert.equal(all.data.length, 3);
        assert.ok(all.data.every((p: any) => !p.isLivePost));
        const wentOut = structured(await list('get_posts_for_channels', { channelIds, livePosts: true }));
        assert.equal(wentOut.data.length, 2);
        assert.ok(wentOut.data.every((p: any) => p.isPosted));
        assert.deepEqual(
          wentOut.data.map((p: any) => p.isLivePost),
          [false, true],
          'latest publish first',
        );
        assert.equal(wentOut.data[0].id, published.id);
        assert.ok(!wentOut.data.some((p: any) => p.id === upcoming.id), 'no upcoming queue in what went out');

        const assets = structured(await list('get_posts_with_assets', { channelIds }));
        assert.deepEqual(
          assets.data.map((p: any) => p.type),
          ['image'],
        );
        const scheduled = structured(await list('get_scheduled_posts', { channelIds }));
        assert.deepEqual(
          scheduled.data.map((p: any) => p.id),
          [upcoming.id],
        );
        assert.match(refusal(await list('get_scheduled_posts', { livePosts: true })), /livePosts/);
        assert.match(refusal(await list('get_posts_with_assets', { livePosts: false })), /livePosts/);
      } finally {
        await c.close();
      }
    },
  );

  it('reads channels, one channel, filtered channels, workspaces and places', async () => {
    const channels = structured(await call('get_channels', {}));
    assert.deepEqual(channels.data.map((c: any) => c.id).sort(), [...account.channelIds].sort());
    const one = structured(await call('get_channel', { channelId: account.channelIds[1] }));
    assert.equal(one.data.handle, '@chan1');
    assert.match(refusal(await call('get_channel', { channelId: 'nope' })), /get_channels/);
    const filtered = structured(await call('get_filtered_channels', { network: 'sandbox', query: 'CHAN2' }));
    assert.deepEqual(
      filtered.data.map((c: any) => c.id),
      [account.channelIds[2]],
    );
    assert.deepEqual(structured(await call('get_filtered_channels', { network: 'linkedin' })).data, []);
    const workspaces = structured(await call('get_workspaces', {}));
    assert.deepEqual(
      workspaces.data.map((w: any) => w.id),
      [account.workspaceId],
    );
    const places = structured(await call('location_search', { query: 'san franc', country: 'us', limit: 3 }));
    assert.equal(places.data[0].name, 'San Francisco');
    assert.equal(places.data[0].adminCode, 'CA');
    assert.ok(places.data.every((p: any) => p.country === 'US'));
    const accents = structured(await call('location_search', { query: 'zurich', limit: 1 }));
    assert.equal(accents.data[0].name, 'Zürich');
  });
});

import assert from 'node:assert/strict';
import { hashSecret } from '../../src/domain/secrets.js';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('REST POST /posts', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  const create = (body: unknown, token = a.apiKey) => t.api('POST', '/v1/rest/posts', { token, body });

  it('publishes now when isScheduled is omitted: one post per channel, sharing a group', async () => {
    const before = Date.now();
    const res = await create({ channelIds: a.channelIds, text: 'Now' });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.length, 2);
    const [first, second] = res.body.data;
    assert.deepEqual([first.channelId, second.channelId], a.channelIds);
    assert.equal(first.groupId, second.groupId);
    assert.equal(first.status, 'scheduled');
    assert.equal(first.isScheduled, false);
    assert.equal(first.isPosted, false);
    assert.ok(Date.parse(first.dateTime) >= before - 1000 && Date.parse(first.dateTime) <= Date.now() + 1000);
    assert.match(first.dateTime, /Z$/);
    assert.equal(first.sourceType, 'api');
    assert.equal('metrics' in first, false, 'scheduled posts carry no metrics');
  });

  it("takes a channel's own text (textByChannel), checked against that channel's network", async () => {
    const { addChannel } = await import('../../src/domain/provisioning.js');
    const mastodon = await addChannel(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      network: 'mastodon',
      handle: '@us@social.example',
    });
    const long = 'A long announcement. '.repeat(40);
    const tooLong = await create({ channelIds: [a.channelIds[0], mastodon.id], text: long });
    assert.equal(tooLong.status, 400, 'the shared text is too long for Mastodon');
    const res = await create({
      channelIds: [a.channelIds[0], mastodon.id],
      text: long,
      textByChannel: { [mastodon.id]: 'Shorter, for Mastodon' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [sandboxPost, mastodonPost] = res.body.data;
    assert.equal(sandboxPost.text, long);
    assert.equal(mastodonPost.text, 'Shorter, for Mastodon');
    assert.equal(sandboxPost.groupId, mastodonPost.groupId, 'still one group');

    const overrideTooLong = await create({
      channelIds: [mastodon.id],
      text: 'fine',
      textByChannel: { [mastodon.id]: long },
    });
    assert.equal(overrideTooLong.status, 400);
    assert.equal(overrideTooLong.body.details[0].path, `textByChannel.${mastodon.id}`);
    const stranger = await create({
      channelIds: [a.channelIds[0]],
      text: 'x',
      textByChannel: { [a.channelIds[1]]: 'y' },
    });
    assert.equal(stranger.status, 400);
    assert.match(
      stranger.body.message,
      new RegExp(`textByChannel names channels the post is not for: ${a.channelIds[1]}`),
    );
  });

  // developers.facebook.com, Threads, posts (emoji counted as their UTF-8 bytes); developers.google.com/youtube/v3/
  // docs/videos (snippet.description 5,000 bytes, no < or > in title or description); TikTok Content Posting API,
  // direct post reference (2,200 "UTF-16 runes").
  it('refuses at write time what Threads, YouTube and TikTok would refuse at upload, counted their way', async () => {
    const { addChannel } = await import('../../src/domain/provisioning.js');
    const on = async (network: string) =>
      (
        await addChannel(t.deps, {
          accountId: a.accountId,
          workspaceId: a.workspaceId,
          network,
          handle: `us-${network}`,
        })
      ).id;
    const [threads, youtube, tiktok] = [await on('threads'), await on('youtube'), await on('tiktok')];
    const video = 'https://cdn.example/v.mp4';

    const emoji = await create({ channelIds: [threads], text: `${'🎉'.repeat(125)} launch day`, saveAsDraft: true });
    assert.equal(emoji.status, 400, '136 code points, but 125 emoji are 500 bytes: 511 in all');
    assert.match(
      emoji.body.message,
      new RegExp(`Channel ${threads}: Threads allows 500 characters; this text has 511`),
    );
    assert.equal(
      (await create({ channelIds: [threads], text: `${'🎉'.repeat(124)} ok`, saveAsDraft: true })).status,
      201,
      '124 emoji and 3 more are 499',
    );

    const bytes = await create({
      channelIds: [youtube],
      text: 'ü'.repeat(2501),
      videoUrls: [video],
      saveAsDraft: true,
    });
    assert.equal(bytes.status, 400);
    assert.match(bytes.body.message, /YouTube allows 5000 bytes; this text has 5002/);
    const angled = await create({
      channelIds: [youtube],
      text: 'Tips for <html> beginners',
      videoUrls: [video],
      saveAsDraft: true,
    });
    assert.equal(angled.status, 400);
    assert.deepEqual(
      angled.body.details.map((d: { path: string }) => d.path),
      ['text'],
    );
    assert.match(angled.body.message, /YouTube does not take < and > in the text/);
    const made = await create({
      channelIds: [youtube],
      text: 'Tips for beginners',
      videoUrls: [video],
      saveAsDraft: true,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const titled = await t.api('PATCH', `/v1/rest/posts/${made.body.data[0].id}`, {
      token: a.apiKey,
      body: { channelOptions: { title: 'Part 1 -> 2' } },
    });
    assert.equal(titled.status, 400);
    assert.match(titled.body.message, /YouTube does not take > in channelOptions.title/);

    const caption = await create({
      channelIds: [tiktok],
      text: '🎬'.repeat(1101),
      imageUrls: ['https://cdn.example/p.jpg'],
      saveAsDraft: true,
    });
    assert.equal(caption.status, 400, '1,101 emoji are 2,202 UTF-16 units');
    assert.match(caption.body.message, /TikTok allows 2200 characters; this text has 2202/);
    assert.equal(
      (
        await create({
          channelIds: [tiktok],
          text: '🎬'.repeat(1100),
          imageUrls: ['https://cdn.example/p.jpg'],
          saveAsDraft: true,
        })
      ).status,
      201,
    );
  });

  it('schedules with isScheduled true and a future dateTime', async () => {
    const when = futureIso(120);
    const res = await create({ channelIds: [a.channelIds[0]], text: 'Later', isScheduled: true, dateTime: when });
    assert.equal(res.status, 201);
    assert.equal(res.body.data[0].dateTime, when);
    assert.equal(res.body.data[0].isScheduled, true);
  });

  it('refuses isScheduled true with a past or missing dateTime, saying so', async () => {
    const past = await create({
      channelIds: [a.channelIds[0]],
      text: 'x',
      isScheduled: true,
      dateTime: '2020-01-01T00:00:00Z',
    });
    assert.equal(past.status, 400);
    assert.match(past.body.message, /dateTime must be in the future/);
    const missing = await create({ channelIds: [a.channelIds[0]], text: 'x', isScheduled: true });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /dateTime is required/);
  });

  it('keeps drafts as drafts', async () => {
    const res = await create({ channelIds: [a.channelIds[0]], text: 'Draft', saveAsDraft: true });
    assert.equal(res.status, 201);
    assert.equal(res.body.data[0].status, 'draft');
    assert.equal(res.body.data[0].isDraft, true);
    assert.equal(res.body.data[0].dateTime, null);
  });

  it('rejects coverMediaId', async () => {
    const res = await create({ channelIds: [a.channelIds[0]], text: 'x', coverMediaId: 'm1' });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /coverMediaId/);
  });

  it('ignores channelOptions on create', async () => {
    const res = await create({ channelIds: [a.channelIds[0]], text: 'x', channelOptions: { reel: true } });
    assert.equal(res.status, 201);
    assert.equal(res.body.data[0].channelOptions, null);
  });

  it('takes firstComment as an object and maps legacy instaFirstComment to firstComment.text', async () => {
    const obj = await create({
      channelIds: [a.channelIds[0]],
      text: 'x',
      firstComment: { text: 'first!', delayMinutes: 5 },
    });
    assert.deepEqual(obj.body.data[0].firstComment, { text: 'first!', delayMinutes: 5 });
    const legacy = await create({ channelIds: [a.channelIds[0]], text: 'x', instaFirstComment: 'legacy' });
    assert.deepEqual(legacy.body.data[0].firstComment, { text: 'legacy', delayMinutes: 0 });
  });

  it("names unknown channel ids, including another account's", async () => {
    const other = await t.seedAccount();
    const res = await create({ channelIds: [other.channelIds[0]], text: 'x' });
    assert.equal(res.status, 400);
    assert.ok(res.body.message.includes(other.channelIds[0]));
  });

  it('holds posts as PENDING when the workspace requires approval, and still succeeds', async () => {
    const held = await t.seedAccount({ approvalRequired: true });
    const res = await create({ channelIds: held.channelIds, text: 'Needs a yes' }, held.apiKey);
    assert.equal(res.status, 201);
    for (const post of res.body.data) assert.equal(post.approvalStatus, 'PENDING');
  });

  it('answers bad input with a 4xx body that says what to fix, never a 500', async () => {
    const cases: [string, number, RegExp][] = [
      ['{"channelIds": [', 400, /not a valid JSON object/],
      [JSON.stringify({ channelIds: 'abc', text: 'x' }), 400, /channelIds/],
      [JSON.stringify({ channelIds: [a.channelIds[0]], text: 'x', surprise: true }), 400, /surprise/],
      [JSON.stringify({ text: 'x' }), 400, /channelIds/],
      [
        JSON.stringify({ channelIds: [a.channelIds[0]], text: 'x', dateTime: 'tomorrow', isScheduled: true }),
        400,
        /dateTime/,
      ],
      [JSON.stringify({ channelIds: [a.channelIds[0]], text: 'x'.repeat(2 * 1024 * 1024) }), 413, /larger than/],
    ];
    for (const [rawBody, status, message] of cases) {
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, status, rawBody.slice(0, 60));
      assert.equal(res.body.status, false);
      assert.match(res.body.message, message);
      assert.ok(!JSON.stringify(res.body).includes('    at '), 'no stack trace');
    }
  });
});

describe('REST authentication', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  it('refuses a missing or unknown bearer token with 401', async () => {
    assert.equal((await t.api('GET', '/v1/rest/posts')).status, 401);
    const res = await t.api('GET', '/v1/rest/posts', { token: 'hk_nope' });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'unauthorized');
  });

  it('refuses a key lacking read_profile or manage_post with 401', async () => {
    const key = await t.createKey(a, ['read_profile', 'manage_post']);
    // Keys are always created with both scopes; an older or hand-edited key row may lack one.
    await t.herald
      .db('api_keys')
      .where({ key_hash: hashSecret(key) })
      .update({ scopes: 'read_profile' });
    const res = await t.api('GET', '/v1/rest/posts', { token: key });
    assert.equal(res.status, 401);
    assert.match(res.body.message, /manage_post/);
  });

  it('stores keys hashed and records when each was last used, at most once a minute', async () => {
    const key = await t.createKey(a, ['read_profile', 'manage_post']);
    const row = () =>
      t.herald
        .db('api_keys')
        .where({ key_hash: hashSecret(key) })
        .first();
    assert.equal((await row()).last_used_at, null);
    assert.equal(await t.herald.db('api_keys').where({ key_hash: key }).first(), undefined);

    const realNow = t.deps.now;
    let now = Date.now();
    t.deps.now = () => now;
    try {
      assert.equal((await t.api('GET', '/v1/rest/posts', { token: key })).status, 200);
      assert.equal(Number((await row()).last_used_at), now);
      const first = now;
      now += 30_000;
      await t.api('GET', '/v1/rest/posts', { token: key });
      assert.equal(Number((await row()).last_used_at), first, 'a second use within the minute writes nothing');
      now += 31_000;
      await t.api('GET', '/v1/rest/posts', { token: key });
      assert.equal(Number((await row()).last_used_at), now);
    } finally {
      t.deps.now = realNow;
    }
  });
});

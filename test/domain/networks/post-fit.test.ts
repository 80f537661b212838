import assert from 'node:assert/strict';
import { NETWORK_CAPABILITIES, capabilitiesOf } from '../../../src/domain/networks/capabilities.js';
import { validatePost, type PostForFit } from '../../../src/domain/networks/post-fit.js';

const post = (fields: Partial<PostForFit>): PostForFit => ({ text: 'Hello', imageUrls: [], videoUrls: [], ...fields });
const img = (n: number, ext = 'jpg') => Array.from({ length: n }, (_, i) => `https://cdn.example/${i}.${ext}`);
const check = (network: string, fields: Partial<PostForFit>, options = {}) =>
  validatePost(capabilitiesOf(network), post(fields), options);

describe("validatePost: a post against its network's capabilities", () => {
  it('has a row for every network a connector is planned for, twitter as an alias of x', () => {
    assert.deepEqual(Object.keys(NETWORK_CAPABILITIES).sort(), [
      'bluesky',
      'discord',
      'facebook',
      'google_business',
      'instagram',
      'linkedin',
      'mastodon',
      'nostr',
      'pinterest',
      'reddit',
      'sandbox',
      'slack',
      'telegram',
      'threads',
      'tiktok',
      'wordpress',
      'x',
      'youtube',
    ]);
    assert.equal(capabilitiesOf('twitter'), NETWORK_CAPABILITIES.x);
    assert.throws(
      () => capabilitiesOf('friendster'),
      (error: Error & { status?: number }) =>
        error.status === 400 && /no connector for network "friendster"/.test(error.message),
    );
  });

  it("holds each item of a list option to its length: X's alt text, 1,000 characters an image", () => {
    assert.deepEqual(check('x', { imageUrls: img(2), channelOptions: { altText: ['a cat', 'b'.repeat(1000)] } }), []);
    const [problem] = check('x', { imageUrls: img(2), channelOptions: { altText: ['a cat', 'b'.repeat(1001)] } });
    assert.deepEqual([problem.rule, problem.path], ['channel_option', 'channelOptions.altText[1]']);
    assert.match(problem.message, /X allows 1000 characters in each of channelOptions.altText; item 1 has 1001/);
  });

  it('accepts a post that fits', () => {
    assert.deepEqual(check('x', { text: 'a'.repeat(280), imageUrls: img(4) }), []);
  });

  it("names the network, the rule and the limit when the text is too long, counted the network's way", () => {
    assert.deepEqual(check('x', { text: '日'.repeat(141) }), [
      {
        network: 'x',
        rule: 'text_length',
        path: 'text',
        message:
          'X allows 280 characters; ' +
          'this text has 282 (X counts each link as 23, and each emoji and CJK character as 2). Shorten it.',
      },
    ]);
    assert.deepEqual(
      check('mastodon', { text: 'a'.repeat(501) }).map((p) => p.message),
      ['Mastodon allows 500 characters; this text has 501. Shorten it.'],
    );
    assert.deepEqual(
      check('bluesky', { text: '👨‍👩‍👧‍👦'.repeat(301) }).map((p) => [p.rule, p.message]),
      [
        [
          'text_length',
          'Bluesky allows 300 characters; ' +
            'this text has 301 (counted as a person sees them: an emoji is one). Shorten it.',
        ],
        ['text_bytes', 'Bluesky allows 3000 bytes of text (UTF-8); this text has 7525. Shorten it.'],
      ],
    );
    assert.deepEqual(
      check('bluesky', { text: '👨‍👩‍👧‍👦'.repeat(100) }),
      [],
      '100 family emoji are 100 graphemes and 2,500 bytes',
    );
  });

  // developers.google.com/youtube/v3/docs/videos: snippet.description at most 5,000 bytes; snippet.title and
  // snippet.description may not contain < or >.
  it('holds a YouTube description to 5,000 bytes and refuses < and > in it and in the title', () => {
    const video = { videoUrls: ['https://cdn.example/v.mp4'] };
    assert.deepEqual(check('youtube', { ...video, text: 'é'.repeat(2500) }), []);
    assert.deepEqual(
      check('youtube', { ...video, text: 'é'.repeat(2501) }).map((p) => [p.rule, p.message]),
      [
        [
          'text_length',
          'YouTube allows 5000 bytes; ' +
            'this text has 5002 (UTF-8: an accented letter is 2, an emoji 4 or more). Shorten it.',
        ],
      ],
    );
    assert.deepEqual(
      check('youtube', { ...video, text: 'Use <b> for bold', channelOptions: { title: 'a > b' } }).map((p) => [
        p.rule,
        p.path,
        p.message,
      ]),
      [
        ['text_characters', 'text', 'YouTube does not take < and > in the text; remove or replace it.'],
        [
          'channel_option',
          'channelOptions.title',
          'YouTube does not take > in channelOptions.title; remove or replace it.',
        ],
      ],
    );
  });

  // developers.facebook.com, Threads, posts: 500 characters, emoji counted as their UTF-8 bytes.
  it('holds a Threads post to 500 with each emoji counted as its UTF-8 bytes', () => {
    assert.deepEqual(check('threads', { text: '👍'.repeat(125) }), []);
    assert.deepEqual(
      check('threads', { text: `${'👍'.repeat(125)}!` }).map((p) => p.message),
      [
        'Threads allows 500 characters; ' +
          'this text has 501 (each emoji counts as its bytes of UTF-8: 4 or more). Shorten it.',
      ],
    );
  });

  // TikTok Content Posting API, direct post reference: a caption of 2,200 "UTF-16 runes".
  it('holds a TikTok caption to 2,200 UTF-16 code units', () => {
    const photo = { imageUrls: img(1) };
    assert.deepEqual(check('tiktok', { ...photo, text: '👍'.repeat(1100) }), []);
    assert.deepEqual(
      check('tiktok', { ...photo, text: `${'👍'.repeat(1100)}!` }).map((p) => p.message),
      ['TikTok allows 2200 characters; this text has 2201 (counted in UTF-16 units: most emoji are 2). Shorten it.'],
    );
  });

  // Telegram Bot API: a message's text 4,096, a caption (the text of a post with media) 1,024.
  it('holds a Telegram post with media to the 1,024 of a caption, and one without to 4,096', () => {
    assert.deepEqual(check('telegram', { text: 'a'.repeat(4096) }), []);
    assert.deepEqual(check('telegram', { text: 'a'.repeat(1024), imageUrls: img(1) }), []);
    assert.deepEqual(
      check('telegram', { text: 'a'.repeat(1025), videoUrls: ['https://cdn.example/v.mp4'] }).map((p) => [
        p.rule,
        p.message,
      ]),
      [
        [
          'text_length',
          'Telegram allows 1024 characters in a post with media; ' +
            'this text has 1025 (counted in UTF-16 units: most emoji are 2). ' +
            'Shorten it, or post the media on their own.',
        ],
      ],
    );
    assert.equal(
      check('telegram', { text: 'a'.repeat(4097), imageUrls: img(1) }).length,
      1,
      'one problem: the larger limit',
    );
  });

  it('lets a channel whose connection reports a higher limit use it, where the network allows that', () => {
    const long = { text: 'a'.repeat(900) };
    assert.equal(check('mastodon', long).length, 1);
    assert.deepEqual(check('mastodon', long, { textLimit: 1000 }), [], 'a Mastodon instance sets max_characters');
    assert.equal(
      check('linkedin', { text: 'a'.repeat(3001) }, { textLimit: 5000 }).length,
      1,
      'LinkedIn has no per-connection limit',
    );
  });

  it('checks media kinds, counts, mixing and presence', () => {
    assert.deepEqual(
      check('x', { imageUrls: img(5) }).map((p) => [p.rule, p.path, p.message]),
      [
        ['media_count', 'imageUrls', 'X allows 4 image(s) per post; this post has 5.'],
        ['media_count', 'imageUrls', 'X allows 4 media items per post; this post has 5.'],
      ],
    );
    assert.deepEqual(
      check('x', { imageUrls: img(2, 'gif') }).map((p) => p.message),
      ['X allows 1 GIF(s) per post; this post has 2.'],
    );
    assert.deepEqual(
      check('x', { imageUrls: img(1), videoUrls: ['https://cdn.example/v.mp4'] }).map((p) => [p.rule, p.message]),
      [
        [
          'media_mix',
          'X takes one kind of media per post, and this post has images and videos; split them into separate posts.',
        ],
      ],
    );
    assert.deepEqual(
      check('instagram', { imageUrls: img(3), videoUrls: ['https://cdn.example/v.mp4'] }),
      [],
      'an Instagram carousel mixes kinds',
    );
    assert.deepEqual(
      check('instagram', { imageUrls: img(11) }).map((p) => p.message),
      [
        'Instagram allows 10 image(s) per post; this post has 11.',
        'Instagram allows 10 media items per post; this post has 11.',
      ],
    );
    assert.deepEqual(
      check('youtube', { imageUrls: img(1) }).map((p) => [p.rule, p.message]),
      [['media_kind', 'YouTube does not take images; remove them from imageUrls.']],
    );
    assert.deepEqual(
      check('youtube', {}).map((p) => [p.rule, p.message]),
      [['media_required', 'YouTube posts need media (video); add videoUrls.']],
    );
    assert.deepEqual(
      check('instagram', {}).map((p) => p.message),
      ['Instagram posts need media (image or video); add imageUrls or videoUrls.'],
    );
    assert.deepEqual(check('sandbox', { imageUrls: img(10), videoUrls: ['https://cdn.example/v.mp4'] }), []);
  });

  it('holds a first comment to the limit where the network makes one, and ignores it where it does not', () => {
    const firstComment = { text: '日'.repeat(141) };
    assert.deepEqual(
      check('x', { firstComment }).map((p) => [p.rule, p.path, p.message]),
      [
        [
          'first_comment_length',
          'firstComment.text',
          'X allows 280 characters in a first comment; ' +
            'this one has 282 (X counts each link as 23, and each emoji and CJK character as 2). Shorten it.',
        ],
      ],
    );
    assert.deepEqual(
      check('threads', { firstComment: { text: 'a'.repeat(5000) } }),
      [],
      'SPEC: ignored on other platforms',
    );
    assert.deepEqual(
      check('tiktok', { imageUrls: img(1), firstComment: { text: 'Link in bio' } }).map((p) => [
        p.rule,
        p.path,
        p.message,
      ]),
      [
        [
          'first_comment_unsupported',
          'firstComment',
          'TikTok has no comment API, so Herald cannot make a first comment there; ' +
            'remove firstComment, or post the comment in the TikTok app.',
        ],
      ],
      'SPEC lists TikTok, but it cannot make one: refused, not dropped',
    );
  });

  it(
    'holds a Google Business Profile post to 1,500 characters and one photo, ' +
      'and refuses a video or a first comment',
    () => {
      assert.deepEqual(check('google_business', { text: 'a'.repeat(1500), imageUrls: img(1) }), []);
      assert.deepEqual(
        check('google_business', {
          text: 'a'.repeat(1501),
          imageUrls: img(2),
          firstComment: { text: 'Call us' },
          channelOptions: { callToAction: 'VISIT' },
        }).map((p) => [p.rule, p.path]),
        [
          ['text_length', 'text'],
          ['media_count', 'imageUrls'],
          ['media_count', 'imageUrls'],
          ['first_comment_unsupported', 'firstComment'],
          ['channel_option', 'channelOptions.callToAction'],
        ],
      );
      assert.deepEqual(
        check('google_business', { videoUrls: ['https://cdn.example/v.mp4'] }).map((p) => p.message),
        ['Google Business Profile does not take videos; remove them from videoUrls.'],
      );
      const [comment] = check('google_business', { firstComment: { text: 'Call us' } });
      assert.equal(
        comment.message,
        'Google Business Profile has no comments on local posts, ' +
          'so Herald cannot make a first comment there; remove firstComment for this channel.',
      );
    },
  );

  it('checks channelOptions the network defines; required ones only when asked', () => {
    assert.deepEqual(
      check('youtube', { videoUrls: ['https://cdn.example/v.mp4'] }),
      [],
      'create ignores channelOptions, so it cannot require a title',
    );
    assert.deepEqual(
      check('youtube', { videoUrls: ['https://cdn.example/v.mp4'] }, { requireOptions: true }).map((p) => [
        p.rule,
        p.path,
        p.message,
      ]),
      [
        [
          'channel_option',
          'channelOptions.title',
          'YouTube needs channelOptions.title (the video title); set it with an update.',
        ],
      ],
    );
    const options = {
      title: 't'.repeat(101),
      privacyStatus: 'friends',
      madeForKids: 'no',
      tags: ['ok', 3],
      reel: true,
    };
    assert.deepEqual(
      check(
        'youtube',
        { videoUrls: ['https://cdn.example/v.mp4'], channelOptions: options },
        { requireOptions: true },
      ).map((p) => p.message),
      [
        'YouTube allows 100 characters in channelOptions.title; this one has 101. Shorten it.',
        'YouTube: channelOptions.privacyStatus must be one of public, unlisted, private.',
        'YouTube: channelOptions.tags must be an array of strings.',
        'YouTube: channelOptions.madeForKids must be true or false.',
      ],
    );
    assert.deepEqual(
      check('pinterest', { imageUrls: img(1), channelOptions: { title: 'Pin' } }, { requireOptions: true }).map(
        (p) => p.path,
      ),
      ['channelOptions.boardId'],
    );
  });

  it("checks the media an option's value asks for (an Instagram reel is one video, a story one item)", () => {
    const video = ['https://cdn.example/v.mp4'];
    assert.deepEqual(check('instagram', { videoUrls: video, channelOptions: { kind: 'reels' } }), []);
    assert.deepEqual(check('instagram', { imageUrls: img(2), channelOptions: { kind: 'feed' } }), []);
    assert.deepEqual(
      check('instagram', { imageUrls: img(1), channelOptions: { kind: 'reels' } }).map((p) => [
        p.rule,
        p.path,
        p.message,
      ]),
      [
        [
          'channel_option',
          'channelOptions.kind',
          'Instagram: a post with channelOptions.kind "reels" carries exactly one video; ' +
            'this one has 1 image(s) and 0 video(s).',
        ],
      ],
    );
    assert.deepEqual(
      check('instagram', { imageUrls: img(1), videoUrls: video, channelOptions: { kind: 'story' } }).map((p) => p.path),
      ['channelOptions.kind'],
    );
  });

  it(
    "holds a Reddit post to a title of 300 (the title option, else the text's first line) " +
      'and no body beside images or a link',
    () => {
      assert.deepEqual(check('reddit', { text: `${'t'.repeat(300)}\nA long body` }), []);
      const [long] = check('reddit', { text: `${'t'.repeat(301)}\nA body` });
      assert.deepEqual([long.rule, long.path], ['title', 'text']);
      assert.match(long.message, /first line as the title, at most 300 characters; this one has 301/);
      assert.deepEqual(check('reddit', { text: `${'t'.repeat(301)}`, channelOptions: { title: 'Short' } }), []);
      assert.deepEqual(
        check('reddit', { text: '', channelOptions: { title: 't'.repeat(301) } }).map((p) => p.path),
        ['channelOptions.title'],
      );
      assert.deepEqual(
        check('reddit', { text: '  ' }).map((p) => p.rule),
        ['title'],
      );
      assert.deepEqual(check('reddit', { text: 'Only a title', imageUrls: img(20) }), []);
      assert.deepEqual(
        check('reddit', { text: 'A title\nA body', imageUrls: img(1) }).map((p) => p.rule),
        ['title'],
      );
      assert.deepEqual(
        check('reddit', { text: 'Body', imageUrls: img(1), channelOptions: { title: 'A title' } }).map((p) => p.rule),
        ['title'],
      );
      assert.deepEqual(check('reddit', { text: 'A title', channelOptions: { link: 'https://example.com/a' } }), []);
      assert.deepEqual(
        check('reddit', { text: 'A title', imageUrls: img(1), channelOptions: { link: 'https://example.com/a' } }).map(
          (p) => p.path,
        ),
        ['channelOptions.link'],
      );
      assert.deepEqual(
        check('reddit', { text: 'A title', channelOptions: { link: 'ftp://x' } }).map((p) => p.rule),
        ['channel_option'],
      );
    },
  );
});

import assert from 'node:assert/strict';
import { countBy, countText, fitText } from '../../../src/domain/networks/text-length.js';

describe("countText: text counted the network's way", () => {
  const family = '👨‍👩‍👧‍👦'; // four people joined by three ZWJs: seven code points, one grapheme
  const flag = '🇩🇪'; // two regional indicators
  const accented = 'e\u0301'; // e + combining acute: two code points, one grapheme

  it('counts code points on Mastodon, LinkedIn and the sandbox', () => {
    assert.equal(countText('mastodon', 'hello'), 5);
    assert.equal(countText('mastodon', family), 7);
    assert.equal(countText('linkedin', `${flag}${accented}`), 4);
    assert.equal(countText('sandbox', '日本語'), 3);
  });

  it('counts graphemes on Bluesky: an emoji ZWJ sequence, a flag and a combined accent are one each', () => {
    assert.equal(countText('bluesky', family), 1);
    assert.equal(countText('bluesky', `${family} ${flag} caf${accented}`), 8);
    assert.equal(countText('bluesky', '👍🏽'), 1, 'skin tone modifier');
    assert.equal(countText('bluesky', 'x'.repeat(300)), 300);
  });

  it('weighs X text: links 23 whatever their length, CJK and emoji 2, Latin 1', () => {
    assert.equal(countText('x', 'hello'), 5);
    assert.equal(countText('x', '日本語'), 6);
    assert.equal(countText('x', '한국어 テスト'), 13);
    assert.equal(countText('x', family), 2, 'a whole ZWJ sequence is one emoji');
    assert.equal(countText('x', flag), 2);
    assert.equal(countText('x', 'https://example.com/a/very/long/path?with=query&and=more'), 23);
    assert.equal(countText('x', 'https://a.co'), 23, 'short links count 23 too');
    assert.equal(
      countText('x', 'see https://example.com/page.'),
      4 + 23 + 1,
      'trailing punctuation is not part of the link',
    );
    assert.equal(countText('x', 'www.example.org and http://x.io'), 23 + 5 + 23);
    assert.equal(countText('x', 'café — “quoted”'), 15, 'Latin-1, general punctuation and curly quotes weigh 1');
    assert.equal(countText('x', '•'), 2, 'U+2022 lies outside the light ranges');
  });

  // developers.facebook.com, Threads, posts (Limitations) and `text` in reference/publishing: 500 characters, emoji
  // counted as the number of their UTF-8 bytes.
  it('counts each emoji as its UTF-8 bytes on Threads, other characters as one', () => {
    assert.equal(countText('threads', 'hello'), 5);
    assert.equal(countText('threads', '👍'), 4);
    assert.equal(countText('threads', family), 25, 'a ZWJ sequence is one emoji of 25 bytes');
    assert.equal(countText('threads', `${flag} café 日本`), 8 + 1 + 4 + 1 + 2);
    assert.equal(countText('threads', '👍'.repeat(125)), 500);
  });

  // developers.google.com/youtube/v3/docs/videos, snippet.description: at most 5,000 bytes.
  it('counts YouTube descriptions in UTF-8 bytes', () => {
    assert.equal(countText('youtube', 'hello'), 5);
    assert.equal(countText('youtube', 'é'), 2);
    assert.equal(countText('youtube', '日本'), 6);
    assert.equal(countText('youtube', '👍'), 4);
  });

  // TikTok Content Posting API, direct post reference, post_info.title: 2,200 "UTF-16 runes".
  it('counts TikTok captions in UTF-16 code units', () => {
    assert.equal(countText('tiktok', 'hello'), 5);
    assert.equal(countText('tiktok', 'é日'), 2);
    assert.equal(countText('tiktok', '👍'), 2);
    assert.equal(countText('tiktok', family), 11);
  });

  it('normalises to NFC before weighing X text', () => {
    assert.equal(countText('x', accented), 1);
  });

  it('knows twitter as x, whatever the case', () => {
    assert.equal(countText('twitter', '日本'), 4);
    assert.equal(countText('X', '日本'), 4);
  });

  it('refuses a network Herald has no connector for, naming it', () => {
    assert.throws(
      () => countText('myspace', 'hi'),
      /Herald has no connector for network "myspace"; it publishes to sandbox, x, bluesky/,
    );
  });
});

describe('fitText', () => {
  it('leaves text within the limit alone', () => {
    assert.equal(fitText('Short enough.', 280), 'Short enough.');
  });

  it("fits CJK text to X's weighted limit, ellipsis included", () => {
    const fitted = fitText('あ'.repeat(200), 280, (t) => countBy('x_weighted', t));
    assert.ok(countBy('x_weighted', fitted) <= 280, `${countBy('x_weighted', fitted)}`);
    assert.equal(fitted, `${'あ'.repeat(139)}…`);
  });

  it('never cuts inside a grapheme', () => {
    const fitted = fitText('👨‍👩‍👧‍👦'.repeat(10), 20);
    assert.ok([...fitted].length <= 20);
    assert.equal(fitted, `${'👨‍👩‍👧‍👦'.repeat(2)}…`);
  });

  it('cuts at a sentence end when one is close to the limit', () => {
    const text = `${'word '.repeat(14)}end. ${'more '.repeat(10)}`;
    assert.equal(fitText(text, 90), `${'word '.repeat(14)}end.`);
  });
});

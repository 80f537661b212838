import assert from 'node:assert/strict';
import { contentVersion, reviewOfChangedPost, reviewOfNewPost } from '../../src/domain/approvals/approval-holds.js';

/** The rule itself; test/team/review-holds.test.ts walks every path that goes through it. */
describe('approval holds: the review rule', () => {
  const post = {
    channelId: 'c1',
    text: 'Launch at nine',
    imageUrls: ['https://cdn.example/a.png'],
    videoUrls: [] as string[],
    firstComment: { text: 'Details', delayMinutes: 0 },
    channelOptions: { altText: ['A rocket'], link: 'https://example.com' },
  };
  const change = (
    after: Partial<typeof post>,
    approvalStatus: 'APPROVED' | 'REJECTED' | 'PENDING' | null = 'APPROVED',
    extra = {},
  ) =>
    reviewOfChangedPost({
      before: { ...post, approvalStatus },
      after: { ...post, ...after, isDraft: false },
      channelsChanged: false,
      approvalRequired: true,
      ...extra,
    });

  it('holds a new post meant to go out where approval is required, not a draft, not elsewhere', () => {
    assert.equal(reviewOfNewPost({ isDraft: false, approvalRequired: true }), 'PENDING');
    assert.equal(reviewOfNewPost({ isDraft: true, approvalRequired: true }), null);
    assert.equal(reviewOfNewPost({ isDraft: false, approvalRequired: false }), null);
  });

  it('voids an approval when what is published changes: text, media, alt text, options, comment, channels', () => {
    const edits: Record<string, Partial<typeof post>> = {
      text: { text: 'Launch at ten' },
      image: { imageUrls: ['https://cdn.example/b.png'] },
      video: { videoUrls: ['https://cdn.example/v.mp4'] },
      'alt text': { channelOptions: { altText: ['A rocket at dawn'], link: 'https://example.com' } },
      'channel option': { channelOptions: { altText: ['A rocket'], link: 'https://example.org' } },
      'first comment': { firstComment: { text: 'Details', delayMinutes: 5 } },
    };
    for (const [what, edit] of Object.entries(edits))
      assert.deepEqual(change(edit), { approvalStatus: 'PENDING', voided: 'APPROVED' }, what);
    assert.deepEqual(
      change({}, 'APPROVED', { channelsChanged: true }),
      { approvalStatus: 'PENDING', voided: 'APPROVED' },
      'channels',
    );
  });

  it('keeps a decision when only the time changes, whatever order the options are written in', () => {
    assert.deepEqual(change({}), { approvalStatus: 'APPROVED' });
    assert.deepEqual(change({ channelOptions: { link: 'https://example.com', altText: ['A rocket'] } }), {
      approvalStatus: 'APPROVED',
    });
    assert.deepEqual(change({}, 'REJECTED'), { approvalStatus: 'REJECTED' });
    assert.equal(
      contentVersion(post),
      contentVersion({ ...post, channelOptions: { link: 'https://example.com', altText: ['A rocket'] } }),
    );
  });

  it('resubmits an edited rejected post; holds an undecided post; a draft waits until it leaves the drafts', () => {
    assert.deepEqual(change({ text: 'Fixed' }, 'REJECTED'), { approvalStatus: 'PENDING', voided: 'REJECTED' });
    assert.deepEqual(change({}, null), { approvalStatus: 'PENDING' });
    assert.deepEqual(change({}, 'PENDING'), { approvalStatus: 'PENDING' });
    const toDraft = reviewOfChangedPost({
      before: { ...post, approvalStatus: 'APPROVED' },
      after: { ...post, text: 'Rethought', isDraft: true },
      channelsChanged: false,
      approvalRequired: true,
    });
    assert.deepEqual(toDraft, { approvalStatus: null, voided: 'APPROVED' });
  });

  it('changes nothing in a workspace that does not require approval', () => {
    assert.deepEqual(change({ text: 'Anything' }, null, { approvalRequired: false }), { approvalStatus: null });
    assert.deepEqual(change({ text: 'Anything' }, 'APPROVED', { approvalRequired: false }), {
      approvalStatus: 'APPROVED',
    });
  });
});

import assert from 'node:assert/strict';
import type { TestHerald } from '../support/herald.js';
import { testWorker } from '../publishing/support.js';

/**
 * Syncs the channel twice, its network's fake reporting 1,500 followers, then 1,529, and checks that REST insights
 * show that audience for the channel: where the period starts and ends, and each sample.
 */
export async function assertAudienceInInsights(
  t: TestHerald,
  apiKey: string,
  channelId: string,
  setFollowers: (followers: number) => void,
): Promise<void> {
  for (const followers of [1500, 1529]) {
    setFollowers(followers);
    await testWorker(t).sync();
    // Samples are keyed by channel and time: the second sync must not share the first's millisecond.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const res = await t.api('GET', `/v1/rest/insights?channelIds=${channelId}`, { token: apiKey });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const channel = res.body.data.byChannel.find((c: any) => c.channelId === channelId);
  assert.deepEqual([channel?.audienceStart, channel?.audienceEnd], [1500, 1529], JSON.stringify(res.body.data));
  assert.deepEqual(
    res.body.data.audience.find((a: any) => a.channelId === channelId)?.points.map((p: any) => p.followers),
    [1500, 1529],
  );
}

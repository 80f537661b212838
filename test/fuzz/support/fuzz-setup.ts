/**
 * What the fuzz suites share: the seed (fixed, FUZZ_SEED replays a failure), a server with an account
 * whose rate budgets are raised far above what the runs spend, and a pool of real ids to aim at.
 */
import type { Config } from '../../../src/config.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../../support/herald.js';
import { callTool } from '../../mcp/support.js';

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261123);

/** fc.assert options: the seed, and no shrinking (a failure is reported at once with its seed and path). */
export function fuzzRuns(numRuns: number): { seed: number; numRuns: number; endOnFailure: true } {
  return { seed: FUZZ_SEED, numRuns, endOnFailure: true };
}

export interface FuzzTarget {
  h: TestHerald;
  account: SeededAccount;
  /**
   * Ids of real things of this account (channels, workspace, posts,
   * a label, a medium) and of another account's post, by kind.
   */
  ids: Record<'channel' | 'workspace' | 'post' | 'label' | 'media', string[]>;
}

const HIGH_BUDGETS = {
  restReadsPerMinute: 10_000_000,
  restWritesPerMinute: 10_000_000,
  accountPerHour: 100_000_000,
  mcpPerTokenPerMinute: 10_000_000,
};

/** `overrides`: more of the configuration a suite needs (a network's app, raised OAuth throttles). */
export async function startFuzzTarget(overrides: Partial<Config> = {}): Promise<FuzzTarget> {
  const h = await startTestHerald({ rateLimits: HIGH_BUDGETS, ...overrides });
  const account = await h.seedAccount({ channels: 3 });
  const other = await h.seedAccount();
  const ids: FuzzTarget['ids'] = {
    channel: [...account.channelIds],
    workspace: [account.workspaceId],
    post: ['live_01hx0000000000000000000100'],
    label: [],
    media: [],
  };

  const create = (key: string, token: string, body: unknown) =>
    h.api('POST', '/v1/rest/posts', { token, body, headers: { 'Idempotency-Key': key } });
  const draft = await create('fuzz-draft', account.apiKey, {
    text: 'draft',
    channelIds: [account.channelIds[0]],
    saveAsDraft: true,
  });
  const scheduled = await create('fuzz-scheduled', account.apiKey, {
    text: 'scheduled',
    channelIds: account.channelIds.slice(0, 2),
    isScheduled: true,
    dateTime: '2031-01-01T09:00:00Z',
  });
  const foreign = await create('fuzz-foreign', other.apiKey, {
    text: 'not yours',
    channelIds: [other.channelIds[0]],
    saveAsDraft: true,
  });
  for (const answer of [draft, scheduled, foreign]) {
    if (answer.status !== 201)
      throw new Error(`fuzz setup: creating a post answered ${answer.status} ${JSON.stringify(answer.body)}`);
    ids.post.push(...(answer.body.data as { id: string }[]).map((p) => p.id));
  }
  const label = await h.api('POST', '/v1/rest/labels', {
    token: account.apiKey,
    body: { name: 'fuzz', color: '#22aa55' },
  });
  const medium = await callTool(h, account.apiKey, 'generate_image', { prompt: 'a lighthouse' });
  const labelId: unknown = label.body?.data?.id;
  const mediaId: unknown = medium.body.result?.structuredContent?.data?.id;
  if (typeof labelId !== 'string' || typeof mediaId !== 'string')
    throw new Error(`fuzz setup: label ${JSON.stringify(label.body)}, medium ${JSON.stringify(medium.body)}`);
  ids.label.push(labelId);
  ids.media.push(mediaId);
  return { h, account, ids };
}

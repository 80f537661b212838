import type { Db } from '../connection.js';
import { insertRows, json } from './rows.js';

/** One post's counters as a sync saw them. */
export interface PostSampleRecord {
  postId: string;
  accountId: string;
  channelId: string;
  publishedAt: number;
  sampledAt: number;
  counters: Record<string, number>;
}

/** One channel's audience (followers or subscribers) as a sync saw it. */
export interface AudienceSampleRecord {
  channelId: string;
  accountId: string;
  sampledAt: number;
  followers: number;
}

/** A published post (Herald's or live) as insights read it: where and when it went out, its latest counters, labels. */
export interface InsightPostRecord {
  id: string;
  channelId: string;
  workspaceId: string;
  network: string;
  text: string;
  permalinkUrl: string | null;
  imageUrl: string | null;
  publishedAt: number;
  metrics: Record<string, number>;
  labelIds: string[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const CHUNK = 400;

/** Metric samples of posts and channels, and the queries of insights (domain/insights/). */
export class InsightsRepository {
  constructor(private readonly db: Db) {}

  async insertPostSamples(samples: readonly PostSampleRecord[]): Promise<void> {
    for (let i = 0; i < samples.length; i += CHUNK) {
      await insertRows(
        this.db,
        'post_samples',
        samples.slice(i, i + CHUNK).map((s) => ({
          post_id: s.postId,
          sampled_at: s.sampledAt,
          account_id: s.accountId,
          channel_id: s.channelId,
          published_at: s.publishedAt,
          counters: JSON.stringify(s.counters),
        })),
        'ON CONFLICT (post_id, sampled_at) DO NOTHING',
      );
    }
  }

  async insertAudienceSample(sample: AudienceSampleRecord): Promise<void> {
    await insertRows(
      this.db,
      'audience_samples',
      [
        {
          channel_id: sample.channelId,
          sampled_at: sample.sampledAt,
          account_id: sample.accountId,
          followers: sample.followers,
        },
      ],
      'ON CONFLICT (channel_id, sampled_at) DO NOTHING',
    );
  }

  /** Claims a workspace's digest of a week; false when another writer has it already. */
  async claimDigest(workspaceId: string, week: string, now: number): Promise<boolean> {
    const rows = await insertRows(
      this.db,
      'insight_digests',
      [{ workspace_id: workspaceId, week, created_at: now }],
      'ON CONFLICT (workspace_id, week) DO NOTHING RETURNING workspace_id',
    );
    return rows.length > 0;
  }

  async digestWritten(workspaceId: string, week: string): Promise<boolean> {
    return (await this.db('insight_digests').where({ workspace_id: workspaceId, week }).first()) !== undefined;
  }

  /** A post's samples, oldest first. */
  async postSamples(accountId: string, postId: string): Promise<PostSampleRecord[]> {
    const rows = await this.db('post_samples').where({ account_id: accountId, post_id: postId }).orderBy('sampled_at');
    return rows.map(toPostSample);
  }

  /** The channels' audience samples in [from, to), oldest first. */
  async audienceSamples(
    accountId: string,
    channelIds: readonly string[],
    from: number,
    to: number,
  ): Promise<AudienceSampleRecord[]> {
    if (channelIds.length === 0) return [];
    const rows = await this.db('audience_samples')
      .where({ account_id: accountId })
      .whereIn('channel_id', channelIds)
      .where('sampled_at', '>=', from)
      .where('sampled_at', '<', to)
      .orderBy(['channel_id', 'sampled_at']);
    return rows.map((r: any) => ({
      channelId: r.channel_id,
      accountId: r.account_id,
      sampledAt: Number(r.sampled_at),
      followers: Number(r.followers),
    }));
  }

  /** Each channel's last audience sample before `before`, the starting point of a period's change. */
  async audienceBefore(
    accountId: string,
    channelIds: readonly string[],
    before: number,
  ): Promise<AudienceSampleRecord[]> {
    const found: AudienceSampleRecord[] = [];
    for (const channelId of channelIds) {
      const row = await this.db('audience_samples')
        .where({ account_id: accountId, channel_id: channelId })
        .where('sampled_at', '<', before)
        .orderBy('sampled_at', 'desc')
        .first();
      if (row)
        found.push({ channelId, accountId, sampledAt: Number(row.sampled_at), followers: Number(row.followers) });
    }
    return found;
  }

  /**
   * The published posts (Herald's and live) of these channels that went out in [from, to), with their latest
   * counters and labels; with labelIds, only posts carrying one of them.
   */
  async publishedPosts(
    accountId: string,
    channelIds: readonly string[],
    from: number,
    to: number,
    labelIds: readonly string[] | null,
  ): Promise<InsightPostRecord[]> {
    if (channelIds.length === 0) return [];
    const query = this.db('posts')
      .join('channels', 'channels.id', 'posts.channel_id')
      .where('posts.account_id', accountId)
      .whereIn('posts.channel_id', channelIds)
      .where((q) => q.where('posts.status', 'published').orWhere('posts.is_live', true))
      .whereNotNull('posts.published_at')
      .where('posts.published_at', '>=', from)
      .where('posts.published_at', '<', to)
      .select(
        'posts.id',
        'posts.channel_id',
        'posts.workspace_id',
        'channels.network',
        'posts.text',
        'posts.permalink_url',
        'posts.image_urls',
        'posts.published_at',
        'posts.metrics',
      )
      .orderBy('posts.published_at')
      .orderBy('posts.id');
    if (labelIds) query.whereIn('posts.id', this.db('post_labels').whereIn('label_id', labelIds).select('post_id'));
    const rows = await query;
    const labels = new Map<string, string[]>();
    const ids = rows.map((r: any) => r.id as string);
    for (let i = 0; i < ids.length; i += CHUNK) {
      for (const link of await this.db('post_labels')
        .whereIn('post_id', ids.slice(i, i + CHUNK))
        .select('post_id', 'label_id')) {
        labels.set(link.post_id, [...(labels.get(link.post_id) ?? []), link.label_id]);
      }
    }
    return rows.map((r: any) => ({
      id: r.id,
      channelId: r.channel_id,
      workspaceId: r.workspace_id,
      network: r.network,
      text: r.text ?? '',
      permalinkUrl: r.permalink_url ?? null,
      imageUrl: json<string[]>(r.image_urls, [])[0] ?? null,
      publishedAt: Number(r.published_at),
      metrics: json<Record<string, number>>(r.metrics, {}) ?? {},
      labelIds: (labels.get(r.id) ?? []).sort(),
    }));
  }

  /**
   * Keeps, of each post's samples, the last of each hour of its first two days and the last of each day after
   * (UTC hours and days), so the latest counters and every hour's or day's closing counters stay exact.
   */
  async compactPostSamples(): Promise<number> {
    const bucket = (s: string) =>
      `CASE WHEN ${s}.sampled_at < ${s}.published_at + ${2 * DAY_MS} THEN ${s}.sampled_at / ${HOUR_MS}` +
      ` ELSE -1 - ${s}.sampled_at / ${DAY_MS} END`;
    return this.db('post_samples')
      .whereExists((q) => {
        q.select(1)
          .from('post_samples as later')
          .whereRaw(`later.post_id = post_samples.post_id
        AND later.sampled_at > post_samples.sampled_at AND ${bucket('later')} = ${bucket('post_samples')}`);
      })
      .del();
  }

  /** The same for channels' audience: hourly for the last two days, daily before. */
  async compactAudienceSamples(now: number): Promise<number> {
    const recent = now - 2 * DAY_MS;
    const bucket = (s: string) =>
      `CASE WHEN ${s}.sampled_at >= ? THEN ${s}.sampled_at / ${HOUR_MS} ELSE -1 - ${s}.sampled_at / ${DAY_MS} END`;
    return this.db('audience_samples')
      .whereExists((q) => {
        q.select(1)
          .from('audience_samples as later')
          .whereRaw(
            `later.channel_id = audience_samples.channel_id
        AND later.sampled_at > audience_samples.sampled_at AND ${bucket('later')} = ${bucket('audience_samples')}`,
            [recent, recent],
          );
      })
      .del();
  }
}

function toPostSample(r: any): PostSampleRecord {
  return {
    postId: r.post_id,
    accountId: r.account_id,
    channelId: r.channel_id,
    publishedAt: Number(r.published_at),
    sampledAt: Number(r.sampled_at),
    counters: json<Record<string, number>>(r.counters, {}),
  };
}

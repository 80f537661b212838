import { isPostgres, type Db } from '../connection.js';
import { runSql } from '../sqlite-statements.js';
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

/** A channel's published posts of one UTC hour (`hour`: epoch ms / 3,600,000), summed (migration 027). */
export interface InsightHourRecord {
  channelId: string;
  hour: number;
  posts: number;
  engagement: number;
  reach: number | null;
  engagedWithReach: number;
  topEngagement: number;
  counters: Record<string, number>;
}

/** The same for a channel's posts of one hour that carry a label. */
export interface InsightLabelHourRecord extends InsightHourRecord {
  labelId: string;
}

/**
 * A channel's published posts of one quarter of a UTC hour (`quarter`: epoch ms / 900,000), summed for the
 * weekday-and-hour cells (migration 029).
 */
export interface InsightQuarterRecord {
  channelId: string;
  quarter: number;
  posts: number;
  engagement: number;
  reach: number | null;
}

/** The same for a channel's posts of one quarter that carry a label. */
export interface InsightLabelQuarterRecord extends InsightQuarterRecord {
  labelId: string;
}

/** What the best-times rule needs of a post: when it went out, its engagement and reach (null: none reported). */
export type ScoredPost = [publishedAt: number, engagement: number, reach: number | null];

/** A quarter's sums with each of its posts' scoring inputs, by publish time then id. */
export interface InsightQuarterWrite extends InsightQuarterRecord {
  scored: ScoredPost[];
}

/** Sums of the rollup's hours of a period, per channel (and per label, read from a label's hours). */
export interface HourSumsRecord {
  channelId: string;
  labelId: string | null;
  posts: number;
  engagement: number;
  reach: number | null;
  engagedWithReach: number;
}

/** A period's sums per hour of the week (`at`: UTC hour mod 168) or quarter of it (UTC quarter mod 672). */
export interface WeekCellRecord {
  at: number;
  posts: number;
  engagement: number;
  reach: number | null;
}

/** A channel's counters summed per UTC day (`day`: epoch ms / 86,400,000), or one label's (migration 030). */
export interface InsightDayRecord {
  channelId: string;
  labelId: string | null;
  day: number;
  counters: Record<string, number>;
}

/** An hour of a channel whose posts changed since it was last counted. */
export interface DirtyHourRecord {
  id: number;
  channelId: string;
  hour: number;
}

/** A published post's figures as the rollup counts them. */
export interface CountedPostRecord {
  channelId: string;
  network: string;
  publishedAt: number;
  metrics: Record<string, number>;
  labelIds: string[];
}

const HOUR_MS = 3_600_000;
const QUARTER_MS = 900_000;
const DAY_MS = 86_400_000;
const CHUNK = 400;
/** Quarters of the rollup read per page of a channel's scored posts (about 14 posts each at 1,000,000 a year). */
const SCORED_PAGE_QUARTERS = 500;
/** Hours one statement deletes from the rollup. */
const HOURS_CHUNK = 1_000;

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
    const query = this.publishedQuery(accountId)
      .whereIn('posts.channel_id', channelIds)
      .where('posts.published_at', '>=', from)
      .where('posts.published_at', '<', to);
    if (labelIds) query.whereIn('posts.id', this.db('post_labels').whereIn('label_id', labelIds).select('post_id'));
    return this.insightPosts(query);
  }

  /**
   * The published posts of these channels' ranges [from, to) (the hours that may hold a period's top posts); with
   * labelIds, only posts carrying one of them.
   */
  async publishedInRanges(
    accountId: string,
    ranges: readonly { channelId: string; from: number; to: number }[],
    labelIds: readonly string[] | null,
  ): Promise<InsightPostRecord[]> {
    // One query a range: a single range is always answered from the (channel_id, published_at) index, where
    // SQLite, without statistics, would rather scan the account's posts than merge many ranges.
    const found: InsightPostRecord[] = [];
    for (const { channelId, from, to } of ranges) {
      const query = this.publishedQuery(accountId)
        .where('posts.channel_id', channelId)
        .where('posts.published_at', '>=', from)
        .where('posts.published_at', '<', to);
      if (labelIds) query.whereIn('posts.id', this.db('post_labels').whereIn('label_id', labelIds).select('post_id'));
      found.push(...(await this.insightPosts(query)));
    }
    return found;
  }

  /**
   * A page of the published posts publishedPosts finds, by publish time then id, after the post `after` (keyset
   * paging: each page costs the same however far into the period it is).
   */
  async publishedPage(
    accountId: string,
    channelIds: readonly string[],
    from: number,
    to: number,
    labelIds: readonly string[] | null,
    after: { publishedAt: number; id: string } | null,
    limit: number,
  ): Promise<InsightPostRecord[]> {
    if (channelIds.length === 0) return [];
    const query = this.publishedQuery(accountId)
      .whereIn('posts.channel_id', channelIds)
      .where('posts.published_at', '>=', after ? after.publishedAt : from)
      .where('posts.published_at', '<', to);
    if (after)
      query.where((q) =>
        q
          .where('posts.published_at', '>', after.publishedAt)
          .orWhere((same) => same.where('posts.published_at', after.publishedAt).where('posts.id', '>', after.id)),
      );
    if (labelIds) query.whereIn('posts.id', this.db('post_labels').whereIn('label_id', labelIds).select('post_id'));
    return this.insightPosts(query.limit(limit));
  }

  private publishedQuery(accountId: string) {
    return this.db('posts')
      .join('channels', 'channels.id', 'posts.channel_id')
      .where('posts.account_id', accountId)
      .where((q) => q.where('posts.status', 'published').orWhere('posts.is_live', true))
      .whereNotNull('posts.published_at');
  }

  private async insightPosts(query: ReturnType<InsightsRepository['publishedQuery']>): Promise<InsightPostRecord[]> {
    const rows = await query
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

  /** The rollup's hours of these channels in [fromHour, toHour), by channel and hour. */
  async hours(
    accountId: string,
    channelIds: readonly string[],
    fromHour: number,
    toHour: number,
  ): Promise<InsightHourRecord[]> {
    if (channelIds.length === 0) return [];
    const rows = await this.db('insight_hours')
      .where({ account_id: accountId })
      .whereIn('channel_id', channelIds)
      .where('hour', '>=', fromHour)
      .where('hour', '<', toHour)
      .orderBy(['channel_id', 'hour']);
    return rows.map(toHourRecord);
  }

  /**
   * The rollup's hours of these channels in [fromHour, toHour) summed per channel by the database; with labelIds,
   * their labels' hours summed per label and channel.
   */
  async hourSums(
    accountId: string,
    channelIds: readonly string[],
    fromHour: number,
    toHour: number,
    labelIds: readonly string[] | null,
  ): Promise<HourSumsRecord[]> {
    if (channelIds.length === 0 || labelIds?.length === 0) return [];
    const query = this.db(labelIds ? 'insight_label_hours' : 'insight_hours')
      .where({ account_id: accountId })
      .whereIn('channel_id', channelIds)
      .where('hour', '>=', fromHour)
      .where('hour', '<', toHour)
      .groupBy(labelIds ? ['label_id', 'channel_id'] : ['channel_id'])
      .select(
        labelIds ? 'label_id' : this.db.raw('NULL AS label_id'),
        'channel_id',
        this.db.raw('SUM(posts) AS posts, SUM(engagement) AS engagement, SUM(reach) AS reach'),
        this.db.raw('SUM(engaged_with_reach) AS engaged_with_reach'),
      );
    if (labelIds) query.whereIn('label_id', labelIds);
    const rows = await query;
    return rows.map((r: any) => ({
      channelId: r.channel_id,
      labelId: r.label_id ?? null,
      posts: Number(r.posts),
      engagement: Number(r.engagement),
      reach: r.reach === null ? null : Number(r.reach),
      engagedWithReach: Number(r.engaged_with_reach),
    }));
  }

  /**
   * The rollup's hours (or quarters) of these channels in [from, to) summed by the database per hour of the week
   * (quarter of the week): a year of them in at most 168 (672) rows; with labelId, that label's.
   */
  async weekSums(
    accountId: string,
    channelIds: readonly string[],
    unit: 'hour' | 'quarter',
    from: number,
    to: number,
    labelId: string | null,
  ): Promise<WeekCellRecord[]> {
    if (channelIds.length === 0) return [];
    const table = `insight_${labelId ? 'label_' : ''}${unit}s`;
    const week = unit === 'hour' ? 168 : 672;
    const query = this.db(table)
      .where({ account_id: accountId })
      .whereIn('channel_id', channelIds)
      .where(unit, '>=', from)
      .where(unit, '<', to)
      .groupByRaw('1')
      .select(this.db.raw(`${unit} % ${week} AS at, SUM(posts) AS posts, SUM(engagement) AS engagement`))
      .select(this.db.raw('SUM(reach) AS reach'));
    if (labelId) query.where('label_id', labelId);
    const rows = await query;
    return rows.map((r: any) => ({
      at: Number(r.at),
      posts: Number(r.posts),
      engagement: Number(r.engagement),
      reach: r.reach === null ? null : Number(r.reach),
    }));
  }

  /**
   * A page of the hours of these channels in [fromHour, toHour) by the most engagement one of their posts has, the
   * newest first among equals (with labelId, that label's hours): where a period's top posts are looked for.
   */
  async topHours(
    accountId: string,
    channelIds: readonly string[],
    fromHour: number,
    toHour: number,
    labelId: string | null,
    offset: number,
    limit: number,
  ): Promise<Pick<InsightHourRecord, 'channelId' | 'hour' | 'topEngagement'>[]> {
    if (channelIds.length === 0) return [];
    const query = this.db(labelId ? 'insight_label_hours' : 'insight_hours')
      .where({ account_id: accountId })
      .whereIn('channel_id', channelIds)
      .where('hour', '>=', fromHour)
      .where('hour', '<', toHour)
      .orderBy([
        { column: 'top_engagement', order: 'desc' },
        { column: 'hour', order: 'desc' },
        { column: 'channel_id', order: 'asc' },
      ])
      .offset(offset)
      .limit(limit)
      .select('channel_id', 'hour', 'top_engagement');
    if (labelId) query.where('label_id', labelId);
    const rows = await query;
    return rows.map((r: any) => ({
      channelId: r.channel_id,
      hour: Number(r.hour),
      topEngagement: Number(r.top_engagement),
    }));
  }

  /** The day rollup's counters of these channels in [fromDay, toDay); with labelIds, of those labels' days. */
  async days(
    accountId: string,
    channelIds: readonly string[],
    fromDay: number,
    toDay: number,
    labelIds: readonly string[] | null,
  ): Promise<InsightDayRecord[]> {
    if (channelIds.length === 0 || labelIds?.length === 0 || fromDay >= toDay) return [];
    const query = this.db(labelIds ? 'insight_label_days' : 'insight_days')
      .where({ account_id: accountId })
      .whereIn('channel_id', channelIds)
      .where('day', '>=', fromDay)
      .where('day', '<', toDay)
      .orderBy([...(labelIds ? ['label_id'] : []), 'channel_id', 'day'])
      .select(labelIds ? 'label_id' : this.db.raw('NULL AS label_id'), 'channel_id', 'day', 'counters');
    if (labelIds) query.whereIn('label_id', labelIds);
    const rows = await query;
    return rows.map((r: any) => ({
      channelId: r.channel_id,
      labelId: r.label_id ?? null,
      day: Number(r.day),
      counters: json<Record<string, number>>(r.counters, {}),
    }));
  }

  /** The counters of a channel's hours, and of its labels' hours, in these UTC days: what its days add up. */
  async hourCountersOfDays(channelId: string, days: readonly number[]): Promise<InsightDayRecord[]> {
    // Runs of consecutive days, each a range of the hours' keys.
    const runs: [number, number][] = [];
    for (const day of [...days].sort((a, b) => a - b)) {
      const last = runs.at(-1);
      if (last && last[1] === day) last[1] = day + 1;
      else runs.push([day, day + 1]);
    }
    const found: InsightDayRecord[] = [];
    for (const table of ['insight_hours', 'insight_label_hours']) {
      for (let i = 0; i < runs.length; i += CHUNK) {
        const rows = await this.db(table)
          .where({ channel_id: channelId })
          .where((q) => {
            for (const [from, to] of runs.slice(i, i + CHUNK))
              q.orWhere((range) => range.where('hour', '>=', from * 24).where('hour', '<', to * 24));
          })
          .select(table === 'insight_hours' ? this.db.raw('NULL AS label_id') : 'label_id', 'hour', 'counters');
        for (const r of rows)
          found.push({
            channelId,
            labelId: r.label_id ?? null,
            day: Math.floor(Number(r.hour) / 24),
            counters: json<Record<string, number>>(r.counters, {}),
          });
      }
    }
    return found;
  }

  /** Replaces the day rollup of a channel's `days` with `counted` (its days and its labels' that have posts). */
  async writeDays(
    accountId: string,
    channelId: string,
    days: readonly number[],
    counted: readonly InsightDayRecord[],
  ): Promise<void> {
    for (const table of ['insight_days', 'insight_label_days'])
      for (let i = 0; i < days.length; i += HOURS_CHUNK)
        await this.db(table)
          .where({ channel_id: channelId })
          .whereIn('day', days.slice(i, i + HOURS_CHUNK))
          .del();
    for (const labelled of [false, true]) {
      const rows = counted.filter((d) => (d.labelId !== null) === labelled);
      for (let i = 0; i < rows.length; i += CHUNK)
        await insertRows(
          this.db,
          labelled ? 'insight_label_days' : 'insight_days',
          rows.slice(i, i + CHUNK).map((d) => ({
            ...(labelled ? { label_id: d.labelId } : {}),
            channel_id: d.channelId,
            day: d.day,
            account_id: accountId,
            counters: JSON.stringify(d.counters),
          })),
        );
    }
  }

  /** The label rollup's hours of these labels and channels in [fromHour, toHour). */
  async labelHours(
    accountId: string,
    labelIds: readonly string[],
    channelIds: readonly string[],
    fromHour: number,
    toHour: number,
  ): Promise<InsightLabelHourRecord[]> {
    if (labelIds.length === 0 || channelIds.length === 0) return [];
    const rows = await this.db('insight_label_hours')
      .where({ account_id: accountId })
      .whereIn('label_id', labelIds)
      .whereIn('channel_id', channelIds)
      .where('hour', '>=', fromHour)
      .where('hour', '<', toHour)
      .orderBy(['label_id', 'channel_id', 'hour']);
    return rows.map((r: any) => ({ labelId: r.label_id, ...toHourRecord(r) }));
  }

  /**
   * The scoring inputs of a channel's posts in quarters [fromQuarter, toQuarter), by publish time then id, in pages
   * of at most `pageQuarters` quarters (by the quarter, as its key): a reader holds a page, never a channel's weeks.
   */
  async *scoredPostPages(
    accountId: string,
    channelId: string,
    fromQuarter: number,
    toQuarter: number,
    pageQuarters = SCORED_PAGE_QUARTERS,
  ): AsyncGenerator<ScoredPost[]> {
    for (let from = fromQuarter; ; ) {
      const rows = await this.db('insight_quarters')
        .where({ account_id: accountId, channel_id: channelId })
        .where('quarter', '>=', from)
        .where('quarter', '<', toQuarter)
        .orderBy('quarter')
        .limit(pageQuarters)
        .select('quarter', 'scored');
      if (rows.length > 0) yield rows.flatMap((r: any) => JSON.parse(r.scored) as ScoredPost[]);
      if (rows.length < pageQuarters) return;
      from = Number(rows[rows.length - 1].quarter) + 1;
    }
  }

  async hasDirtyHours(): Promise<boolean> {
    return (await this.db('insight_dirty').select('id').first()) !== undefined;
  }

  /**
   * The oldest hours noted as changed, up to `limit`, claimed by the caller's transaction: on Postgres a refresher
   * waits for the one before it, so an hour is never written back from posts read before a later count committed.
   */
  async claimDirtyHours(limit: number): Promise<DirtyHourRecord[]> {
    if (isPostgres(this.db)) await this.db.raw("SELECT pg_advisory_xact_lock(hashtext('herald_insight_hours'))");
    const rows = await this.db('insight_dirty').select('id', 'channel_id', 'hour').orderBy('id').limit(limit);
    return rows.map((r: any) => ({ id: Number(r.id), channelId: r.channel_id, hour: Number(r.hour) }));
  }

  /**
   * The published posts of a channel in these hours, with its account and network: one statement for the posts and
   * one for their labels, whatever the hours (each hour a range of the (channel_id, published_at) index).
   */
  async countedPosts(
    channelId: string,
    hours: readonly number[],
  ): Promise<{ accountId: string; posts: CountedPostRecord[] } | undefined> {
    const channel = await this.db('channels').where({ id: channelId }).select('account_id', 'network').first();
    if (!channel) return undefined;
    // Each hour its own range of the index: on Postgres a LATERAL fenced by OFFSET 0 (the planner would otherwise
    // read the channel's every post once and test it against each hour, where its statistics are behind), on
    // SQLite a CROSS JOIN (without statistics, it would rather do the same).
    const inHours = isPostgres(this.db)
      ? `json_array_elements_text(?::json) AS h(value) CROSS JOIN LATERAL (
          SELECT id, published_at, metrics, status, is_live FROM posts WHERE channel_id = ?
          AND published_at >= h.value::bigint * ${HOUR_MS} AND published_at < (h.value::bigint + 1) * ${HOUR_MS}
          OFFSET 0) p`
      : `json_each(?) AS h CROSS JOIN posts p ON p.channel_id = ?
          AND p.published_at >= h.value * ${HOUR_MS} AND p.published_at < (h.value + 1) * ${HOUR_MS}`;
    const bindings = [JSON.stringify(hours), channelId];
    const rows = await runSql(
      this.db,
      `SELECT p.id, p.published_at, p.metrics FROM ${inHours} WHERE p.status = 'published' OR p.is_live = ?
        ORDER BY p.published_at, p.id`,
      [...bindings, true],
    );
    const labels = new Map<string, string[]>();
    for (const link of await runSql(
      this.db,
      `SELECT l.post_id, l.label_id FROM ${inHours} JOIN post_labels l ON l.post_id = p.id`,
      bindings,
    )) {
      const postId = link.post_id as string;
      labels.set(postId, [...(labels.get(postId) ?? []), link.label_id as string]);
    }
    return {
      accountId: channel.account_id,
      posts: rows.map((r) => ({
        channelId,
        network: channel.network,
        publishedAt: Number(r.published_at),
        metrics: json<Record<string, number>>(r.metrics, {}) ?? {},
        labelIds: labels.get(r.id as string) ?? [],
      })),
    };
  }

  /**
   * Replaces the rollup of a channel's `hours` with `counted`, `labelHours` and those hours' `quarters` and
   * `labelQuarters` (those that have posts).
   */
  async writeHours(
    accountId: string,
    channelId: string,
    hours: readonly number[],
    counted: readonly InsightHourRecord[],
    labelHours: readonly InsightLabelHourRecord[],
    quarters: readonly InsightQuarterWrite[],
    labelQuarters: readonly InsightLabelQuarterRecord[],
  ): Promise<void> {
    const quartersOf = hours.flatMap((hour) => [0, 1, 2, 3].map((q) => (hour * HOUR_MS) / QUARTER_MS + q));
    for (const table of ['insight_quarters', 'insight_label_quarters']) {
      for (let i = 0; i < quartersOf.length; i += HOURS_CHUNK) {
        await this.db(table)
          .where({ channel_id: channelId })
          .whereIn('quarter', quartersOf.slice(i, i + HOURS_CHUNK))
          .del();
      }
    }
    for (const table of ['insight_hours', 'insight_label_hours']) {
      for (let i = 0; i < hours.length; i += HOURS_CHUNK) {
        await this.db(table)
          .where({ channel_id: channelId })
          .whereIn('hour', hours.slice(i, i + HOURS_CHUNK))
          .del();
      }
    }
    await this.insertHours('insight_hours', accountId, counted);
    await this.insertHours('insight_label_hours', accountId, labelHours);
    for (let i = 0; i < quarters.length; i += CHUNK) {
      await insertRows(
        this.db,
        'insight_quarters',
        quarters.slice(i, i + CHUNK).map((q) => ({
          channel_id: q.channelId,
          quarter: q.quarter,
          account_id: accountId,
          posts: q.posts,
          engagement: q.engagement,
          reach: q.reach,
          scored: JSON.stringify(q.scored),
        })),
      );
    }
    for (let i = 0; i < labelQuarters.length; i += CHUNK) {
      await insertRows(
        this.db,
        'insight_label_quarters',
        labelQuarters.slice(i, i + CHUNK).map((q) => ({
          label_id: q.labelId,
          channel_id: q.channelId,
          quarter: q.quarter,
          account_id: accountId,
          posts: q.posts,
          engagement: q.engagement,
          reach: q.reach,
        })),
      );
    }
  }

  private async insertHours(
    table: string,
    accountId: string,
    hours: readonly (InsightHourRecord & { labelId?: string })[],
  ): Promise<void> {
    for (let i = 0; i < hours.length; i += CHUNK) {
      await insertRows(
        this.db,
        table,
        hours.slice(i, i + CHUNK).map((h) => ({
          ...(h.labelId === undefined ? {} : { label_id: h.labelId }),
          channel_id: h.channelId,
          hour: h.hour,
          account_id: accountId,
          posts: h.posts,
          engagement: h.engagement,
          reach: h.reach,
          engaged_with_reach: h.engagedWithReach,
          top_engagement: h.topEngagement,
          counters: JSON.stringify(h.counters),
        })),
      );
    }
  }

  async clearDirtyHours(ids: readonly number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += CHUNK)
      await this.db('insight_dirty')
        .whereIn('id', ids.slice(i, i + CHUNK))
        .del();
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

function toHourRecord(r: any): InsightHourRecord {
  return {
    channelId: r.channel_id,
    hour: Number(r.hour),
    posts: Number(r.posts),
    engagement: Number(r.engagement),
    reach: r.reach === null ? null : Number(r.reach),
    engagedWithReach: Number(r.engaged_with_reach),
    topEngagement: Number(r.top_engagement),
    counters: json<Record<string, number>>(r.counters, {}),
  };
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

import { NetworkError } from '../../domain/networks/connector.js';

/**
 * The YouTube Data API's daily quota, counted per Google project (Google's quota calculator,
 * developers.google.com/youtube/v3/determine_quota_cost).
 *
 * Rules kept here:
 * - every call is charged before it is made, at its documented cost, even if it then fails (Google charges
 *   invalid requests too); a call the day's budget cannot pay is not made: it is retry_later at the reset;
 * - videos.insert has its own bucket (YOUTUBE_DAILY_UPLOADS calls a day); everything else draws on the
 *   units (YOUTUBE_DAILY_QUOTA), so an upload is refused before a byte is sent, never mid-way;
 * - both reset at midnight Pacific time; the counts live in the database so every worker and instance share them;
 * - Google's own quotaExceeded spends the rest of the bucket, so no call is wasted until the reset.
 */

/** Units per call, from Google's table; the upload bucket counts one per videos.insert. */
export const YOUTUBE_CALL_COSTS = {
  list: 1,
  commentThreadsInsert: 50,
  videosInsert: 1,
} as const;

export type QuotaBucket = 'units' | 'uploads';

/** Fixed-window counters shared by every instance (the database's rate-limit windows). */
export interface QuotaCounter {
  add(bucket: string, windowStart: number, expiresAt: number, amount: number): Promise<number>;
  takeBack(bucket: string, windowStart: number, amount: number): Promise<void>;
}

export interface QuotaLimits {
  units: number;
  uploads: number;
}

const HOUR_MS = 3_600_000;

export class YouTubeQuota {
  constructor(
    private readonly counter: QuotaCounter,
    private readonly limits: () => QuotaLimits | undefined,
    private readonly now: () => number,
  ) {}

  /** Charges `amount` to the project's bucket, or refuses with the reset time when the day's budget cannot pay. */
  async spend(project: string, bucket: QuotaBucket, amount: number): Promise<void> {
    const limit = this.limitOf(bucket);
    const { start, reset } = pacificDay(this.now());
    const name = bucketName(project, bucket);
    const total = await this.counter.add(name, start, reset + HOUR_MS, amount);
    if (total <= limit) return;
    await this.counter.takeBack(name, start, amount);
    throw spent(bucket, limit, reset);
  }

  /** Google said the bucket is spent: nothing more is charged to it before the reset. */
  async exhaust(project: string, bucket: QuotaBucket): Promise<NetworkError> {
    const limit = this.limitOf(bucket);
    const { start, reset } = pacificDay(this.now());
    await this.counter.add(bucketName(project, bucket), start, reset + HOUR_MS, limit);
    return spent(
      bucket,
      limit,
      reset,
      " (YouTube answered quotaExceeded: the project's quota in the Google Cloud console may be lower than Herald's " +
        'setting)',
    );
  }

  /** What the bucket can still pay today, read without charging it. */
  async left(project: string, bucket: QuotaBucket): Promise<number> {
    const { start, reset } = pacificDay(this.now());
    return this.limitOf(bucket) - (await this.counter.add(bucketName(project, bucket), start, reset + HOUR_MS, 0));
  }

  /** The words a spent bucket is refused with, for a rehearsal before a post (domain/posts/preflight.ts). */
  spentMessage(bucket: QuotaBucket): string {
    return spent(bucket, this.limitOf(bucket), this.resetAt()).message;
  }

  /** When the current Pacific day's quota resets. */
  resetAt(): number {
    return pacificDay(this.now()).reset;
  }

  private limitOf(bucket: QuotaBucket): number {
    const limits = this.limits();
    return bucket === 'units' ? (limits?.units ?? 0) : (limits?.uploads ?? 0);
  }
}

function bucketName(project: string, bucket: QuotaBucket): string {
  return `youtube-quota:${bucket}:${project}`;
}

function spent(bucket: QuotaBucket, limit: number, reset: number, cause = ''): NetworkError {
  const what =
    bucket === 'units'
      ? `its ${limit} daily YouTube Data API units (YOUTUBE_DAILY_QUOTA)`
      : `its ${limit} daily video uploads (YOUTUBE_DAILY_UPLOADS)`;
  return new NetworkError(
    'retry_later',
    `The Google project has spent ${what}${cause}; Herald tries again when the quota resets at midnight Pacific ` +
      `time, ${new Date(reset).toISOString()}`,
    reset,
  );
}

const PACIFIC = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Los Angeles wall-clock time at `at`, read as if it were UTC, minus `at`: the zone's offset then. */
function pacificOffset(at: number): number {
  const parts = Object.fromEntries(PACIFIC.formatToParts(at).map((p) => [p.type, Number(p.value)]));
  return (
    Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) -
    Math.floor(at / 1000) * 1000
  );
}

/** Midnight Pacific time at or before `at`. */
function pacificMidnight(at: number): number {
  const wall = new Date(at + pacificOffset(at));
  const midnightWall = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate());
  // The offset at midnight itself, which differs from `at`'s on the days the clocks change.
  return midnightWall - pacificOffset(midnightWall - pacificOffset(at));
}

/** The Pacific day holding `at`: its start and the next midnight, when Google resets the quota. */
export function pacificDay(at: number): { start: number; reset: number } {
  const start = pacificMidnight(at);
  return { start, reset: pacificMidnight(start + 26 * HOUR_MS) };
}

/**
 * When Herald's database or its disk, not the request, is the problem: what a client is told and what the log says.
 *
 * Rules kept here:
 * - a database that cannot be reached (Postgres restarting, shut down or refusing connections, a pool with no live
 *   connection to give) answers 503 with Retry-After: the request may be sent again as it is (databaseFault);
 * - a database or DATA_DIR out of space answers 507 "Herald's storage is full", a fault for the operator, not the
 *   client; its record is left as it was (the write failed whole);
 * - an outage is said in the log once when it begins and once when it ends, never per request (DatabaseOutages)
 *   nor per poll of a worker, whose errors pass through the same outage first (quietDuringOutages);
 * - free space in DATA_DIR under the operator's threshold (STORAGE_LOW_MB) is a warning in /healthz and, once, in the
 *   log, before writes start to fail (lowSpaceWarning).
 */
import { HeraldError } from './errors.js';

// Long enough for a Postgres restart or a failover; a client that retries sooner only meets the outage again.
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export class DatabaseUnavailableError extends HeraldError {
  readonly retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS;
  constructor(cause: unknown) {
    super(
      'service_unavailable',
      503,
      'Herald cannot reach its database right now; nothing was changed. ' +
        `Retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    );
    this.cause = cause;
  }
}

export class StorageFullError extends HeraldError {
  constructor(cause: unknown) {
    super(
      'storage_full',
      507,
      "Herald's storage is full; nothing was changed. The operator must free space before writes succeed again.",
    );
    this.cause = cause;
  }
}

// Postgres: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, and the connection exceptions.
const PG_UNREACHABLE = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
// The socket under a pg connection.
const SOCKET_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
// node-postgres says these in words only: a connection that died under a query, or one used after it died. Knex
// puts the statement before the words ("BEGIN; - Connection terminated unexpectedly").
const PG_DEAD_CONNECTION =
  /(?:^|\s-\s)(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;
// Postgres disk_full, SQLite's full database or disk, and a file write with no space left.
const FULL = new Set(['53100', 'SQLITE_FULL', 'ENOSPC']);
// SQLite ends a transaction by itself when its database or disk is full (or, more rarely, on an I/O error); the
// ROLLBACK Knex or a unit of work then sends fails with this, and the SQLITE_FULL before it never reaches here.
const SQLITE_ENDED_TRANSACTION = /cannot rollback - no transaction is active|no such savepoint: herald_unit/;

interface ErrorLike {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The fault of the database or its disk behind an error, as the error to answer with; undefined for anything else. */
export function databaseFault(error: unknown): DatabaseUnavailableError | StorageFullError | undefined {
  if (error instanceof DatabaseUnavailableError || error instanceof StorageFullError) return error;
  // Knex and drivers may wrap the driver's error; a few levels cover every wrapping seen.
  for (
    let e = error as ErrorLike | undefined, depth = 0;
    e && typeof e === 'object' && depth < 4;
    e = e.cause as ErrorLike, depth++
  ) {
    if (e instanceof HeraldError) return undefined;
    const code = typeof e.code === 'string' ? e.code : '';
    if (FULL.has(code)) return new StorageFullError(error);
    if (code === 'SQLITE_ERROR' && typeof e.message === 'string' && SQLITE_ENDED_TRANSACTION.test(e.message))
      return new StorageFullError(error);
    // A pool whose connections all died cannot hand one out: Knex's acquire timeout.
    if (PG_UNREACHABLE.has(code) || e.name === 'KnexTimeoutError') return new DatabaseUnavailableError(error);
    // The pool's own connect fails with the socket's error itself; one found under another error (fetch failed,
    // an outbound call) is not the database's.
    if (depth === 0 && SOCKET_UNREACHABLE.has(code)) return new DatabaseUnavailableError(error);
    if (typeof e.message === 'string' && PG_DEAD_CONNECTION.test(e.message)) return new DatabaseUnavailableError(error);
  }
  return undefined;
}

export interface OutageLog {
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
}

// How often the database is asked, during an outage, whether it is back (only to say so in the log).
const PROBE_MS = 1_000;

/**
 * The outage the process is in, if any: said when the first request meets it, and when the database answers a
 * probe again (asked every second meanwhile, so the end is told even with no traffic).
 */
export class DatabaseOutages {
  private current: { kind: 'unreachable' | 'full'; since: number; requests: number } | undefined;
  private probing: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: OutageLog,
    /** A statement that succeeds once the database takes requests again (a write, where the fault was space). */
    private readonly probe: (kind: 'unreachable' | 'full') => Promise<unknown>,
    private readonly now: () => number = Date.now,
    /** What waits for the database: an API's requests (answered 503 or 507), or a worker's publishing alone. */
    private readonly waiting: 'requests' | 'publishing' = 'requests',
  ) {}

  /** Takes a failed request's error: true if it was the database's fault (then logged here, once an outage). */
  noticed(error: unknown): boolean {
    const fault = databaseFault(error);
    if (!fault) return false;
    const kind = fault instanceof StorageFullError ? 'full' : 'unreachable';
    if (this.current?.kind === kind) {
      this.current.requests++;
      return true;
    }
    this.current = { kind, since: this.now(), requests: 1 };
    const cause = fault.cause as ErrorLike | undefined;
    const reason = {
      code: cause?.code,
      error: typeof cause?.message === 'string' ? cause.message.slice(0, 200) : undefined,
    };
    const meanwhile =
      this.waiting === 'publishing'
        ? 'publishing waits'
        : kind === 'full'
          ? 'writes answer 507'
          : `requests answer 503 with Retry-After ${DATABASE_RETRY_AFTER_SECONDS}`;
    if (kind === 'full') this.log.warn(`Herald's storage is full: ${meanwhile} until space is freed`, reason);
    else this.log.warn(`Herald cannot reach its database: ${meanwhile} until it is back`, reason);
    this.scheduleProbe();
    return true;
  }

  /** Stops probing (the process is closing). */
  stop(): void {
    clearTimeout(this.probing);
    this.probing = undefined;
  }

  private scheduleProbe(): void {
    if (this.probing) return;
    this.probing = setTimeout(() => {
      const outage = this.current;
      if (!outage) return;
      this.probe(outage.kind).then(
        () => {
          this.probing = undefined;
          if (this.current !== outage) return;
          this.current = undefined;
          const fields = { seconds: Math.round((this.now() - outage.since) / 1000), failedRequests: outage.requests };
          this.log.info(
            outage.kind === 'full' ? "Herald's storage takes writes again" : 'Herald reaches its database again',
            fields,
          );
        },
        () => {
          this.probing = undefined;
          this.scheduleProbe();
        },
      );
    }, PROBE_MS);
    // A process stopping mid-outage is not kept alive by the probe.
    this.probing.unref();
  }
}

/**
 * A log whose errors that are the database's fault go to the outage instead, said there once; every other error is
 * logged as it was. The worker logs through it, so a database that is down is not an error at every poll.
 */
export function quietDuringOutages<L extends OutageLog & { error(message: string, error?: unknown): void }>(
  log: L,
  outages: DatabaseOutages,
): L {
  return {
    ...log,
    error: (message: string, error?: unknown) => {
      if (!outages.noticed(error)) log.error(message, error);
    },
  };
}

/** The warning for /healthz and the log when DATA_DIR's free space is under the threshold; undefined above it. */
export function lowSpaceWarning(freeBytes: number, thresholdBytes: number): string | undefined {
  if (freeBytes >= thresholdBytes) return undefined;
  const mb = (bytes: number) => `${Math.floor(bytes / (1024 * 1024))} MB`;
  return (
    `DATA_DIR has ${mb(freeBytes)} free, under STORAGE_LOW_MB (${mb(thresholdBytes)}): ` +
    'free space before writes fail with 507.'
  );
}

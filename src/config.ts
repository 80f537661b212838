import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/web of the checkout this code runs from (src/ under tsx, dist/src/ once compiled). */
function defaultWebAppDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'web');
}

/** Everything Herald reads from its environment, resolved once and passed down. */
export interface Config {
  port: number;
  host: string;
  /** Public URL of this instance; links, OAuth issuer and MCP resource derive from it. */
  baseUrl: string;
  dataDir: string;
  /** Postgres connection string; SQLite under dataDir when absent. */
  databaseUrl: string | undefined;
  /** The master key that seals secrets at rest (HERALD_SECRET_KEY); DATA_DIR/secret.key when unset. */
  secretKey?: string;
  /** The key being rotated away from (HERALD_PREVIOUS_SECRET_KEY): still opens what it sealed. */
  previousSecretKey?: string;
  rateLimits: RateLimitConfig;
  /** Web-app pages and REST calls per signed-in person a minute, apart from the API budgets. */
  appRequestsPerMinute: number;
  /** Where the built web app is (make build writes dist/web): its manifest.json and assets/. */
  webAppDir: string;
  /** Largest JSON body accepted, in bytes, counted after decompression. */
  maxBodyBytes: number;
  /** scrypt's N for new password hashes; no variable sets it, so only the test suite lowers it. */
  passwordHashCost: number;
  /** What request bodies being read may hold at once, and for how long (src/http/request-body.ts). */
  bodiesInFlight: BodiesInFlightConfig;
  /** Validate responses against the OpenAPI file too (tests turn it on). */
  validateResponses: boolean;
  /** Run the publishing worker inside the API process. */
  worker: boolean;
  /** How often an idle worker looks for due posts. */
  workerPollMs: number;
  /** Network calls one worker keeps in flight at once (they wait on the network, not the CPU). */
  workerConcurrency: number;
  workerMediaConcurrency: number;
  /** A delay the sandbox network adds to each call, with up to half again of jitter, to rehearse slow networks. */
  sandboxLatencyMs: number;
  /** How long a claim holds a post; a crashed worker's posts are reconsidered after it. */
  workerLeaseSeconds: number;
  /** How often the worker syncs live posts and metrics from the networks. */
  syncIntervalSeconds: number;
  /** How long before its time a scheduled post is rehearsed without publishing (domain/posts/preflight.ts); 0 never. */
  preflightMinutes: number;
  logRequests: boolean;
  /** Free space in DATA_DIR under which /healthz and the log warn (STORAGE_LOW_MB), before writes fail. */
  storageLowBytes: number;
  /** Express's `trust proxy`: which proxies may name the client address (X-Forwarded-For); none when false. */
  trustProxy: boolean | number | string;
  /** Per client address budgets on the anonymous OAuth endpoints. */
  oauthThrottles: OAuthThrottleConfig;
  /** Hosts (names or IP literals) that user-supplied URLs may reach even on non-public addresses. */
  outboundAllowHosts: string[];
  /** Fetching the Client ID Metadata Document of an MCP client whose client_id is a URL. */
  clientMetadataDocuments: ClientMetadataDocumentsConfig;
  /** NETWORK_ORIGIN_OVERRIDES: a network's real origin (https://bsky.social) mapped to another (a local fake). */
  networkOriginOverrides: Record<string, string>;
  networks: NetworksConfig;
  media: MediaConfig;
  ai: AiConfig;
}

export interface NetworksConfig {
  /** Timeout of one call to a network, in ms. */
  timeoutMs: number;
  /** Largest answer read from a network, in bytes. */
  maxResponseBytes: number;
  /**
   * Scales the waits between a connector's status polls (video processing, uploads); 1, each network's own
   * documented interval, in service. Not read from the environment: tests against fakes shorten it.
   */
  pollWaitScale: number;
  /** The operator's app at each OAuth network; a network without its app is listed as not configured. */
  apps: NetworkAppsConfig;
}

/** An OAuth client registered at a network by the operator (docs/networks.md, Connecting networks). */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
}

export interface NetworkAppsConfig {
  x?: OAuthApp;
  /**
   * LINKEDIN_VERSION: the `LinkedIn-Version` (YYYYMM) every call sends; LinkedIn retires versions after a year.
   * LINKEDIN_ORGANIZATIONS=false: consent asks for the member's scopes only (an app without the Community Management
   * API).
   */
  linkedin?: OAuthApp & { apiVersion: string; organizations: boolean };
  /** FACEBOOK_GRAPH_VERSION: the Graph API version (v23.0) in every Facebook and Instagram call. */
  facebook?: OAuthApp & { graphVersion: string };
  /**
   * Instagram Login (business accounts without a Facebook Page), calling graph.instagram.com with
   * FACEBOOK_GRAPH_VERSION.
   */
  instagram?: OAuthApp & { graphVersion: string };
  /**
   * YouTube through Google OAuth: the project's daily unit budget (YOUTUBE_DAILY_QUOTA), its daily videos.insert
   * budget (YOUTUBE_DAILY_UPLOADS), and the size of each upload chunk (YOUTUBE_UPLOAD_CHUNK_BYTES).
   */
  google?: OAuthApp & { youtubeDailyQuota: number; youtubeDailyUploads: number; youtubeChunkBytes: number };
  tiktok?: OAuthApp;
  pinterest?: OAuthApp;
  /** THREADS_GRAPH_VERSION: the Threads Graph API version (v1.0) in every graph.threads.net call. */
  threads?: OAuthApp & { graphVersion: string };
  slack?: OAuthApp;
  /** REDDIT_USER_AGENT: the User-Agent Reddit asks every client to send, naming the app and its operator. */
  reddit?: OAuthApp & { userAgent?: string };
}

export interface MediaConfig {
  /** Largest file create_media_upload accepts, in bytes. */
  maxUploadBytes: number;
  /** Largest file import_media_from_url downloads, in bytes. */
  maxImportBytes: number;
  importTimeoutMs: number;
  /** An S3-compatible bucket; local disk under dataDir/media when absent. */
  s3?: {
    bucket: string;
    region: string;
    endpoint?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    forcePathStyle: boolean;
    prefix: string;
  };
}

export interface AiConfig {
  /** An OpenAI-compatible API (…/v1); the built-in offline provider answers when absent. */
  baseUrl?: string;
  apiKey?: string;
  model: string;
  imageModel: string;
  timeoutMs: number;
}

export interface ClientMetadataDocumentsConfig {
  /** OAUTH_CLIENT_METADATA_TIMEOUT_MS: the whole fetch of one document. */
  timeoutMs: number;
  /**
   * OAUTH_CLIENT_METADATA_HTTP_HOSTS: hosts whose https client_id URLs are fetched over plain http, for tests and
   * local development only (a client on this machine has no certificate); never set in production.
   */
  plainHttpHosts: string[];
}

export interface OAuthThrottleConfig {
  /** Dynamic client registrations per client address per hour. */
  registrationsPerHour: number;
  /** Wrong sign-in passwords per client address per 15 minutes, whatever the emails. */
  failedSignInsPerWindow: number;
}

export interface BodiesInFlightConfig {
  /** Bytes of request bodies held by this process at once; a body beyond is a 503. */
  bytes: number;
  /** Of those, bytes held for one client address; a body beyond is a 429. */
  bytesPerAddress: number;
  /** A body not whole within this many milliseconds is a 408. */
  timeoutMs: number;
}

export interface RateLimitConfig {
  restReadsPerMinute: number;
  restWritesPerMinute: number;
  accountPerHour: number;
  mcpPerTokenPerMinute: number;
}

type Env = Record<string, string | undefined>;

function intFrom(env: Env, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  }
  return value;
}

function boolFrom(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/**
 * TRUST_PROXY: unset or false trusts no proxy; a number counts hops; anything else is Express's address list
 * ("loopback, 10.0.0.0/8").
 */
function trustProxyFrom(raw: string | undefined): boolean | number | string {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  // PORT=0: any free port, announced at start; BASE_URL then follows it unless set.
  const port = overrides.port ?? intFrom(env, 'PORT', 8080, 0);
  const host = env.HOST || '0.0.0.0';
  const baseUrl = (env.BASE_URL || (port === 0 ? '' : `http://localhost:${port}`)).replace(/\/+$/, '');
  const config: Config = {
    port,
    host,
    baseUrl,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    secretKey: env.HERALD_SECRET_KEY || undefined,
    previousSecretKey: env.HERALD_PREVIOUS_SECRET_KEY || undefined,
    rateLimits: {
      restReadsPerMinute: intFrom(env, 'RATE_LIMIT_REST_READS_PER_MINUTE', 60),
      restWritesPerMinute: intFrom(env, 'RATE_LIMIT_REST_WRITES_PER_MINUTE', 15),
      accountPerHour: intFrom(env, 'RATE_LIMIT_ACCOUNT_PER_HOUR', 1000),
      mcpPerTokenPerMinute: intFrom(env, 'RATE_LIMIT_MCP_PER_MINUTE', 60),
    },
    appRequestsPerMinute: intFrom(env, 'RATE_LIMIT_APP_REQUESTS_PER_MINUTE', 300),
    webAppDir: path.resolve(env.WEB_APP_DIR || defaultWebAppDir()),
    maxBodyBytes: intFrom(env, 'MAX_BODY_BYTES', 1024 * 1024),
    // scrypt at N=2^15 with r=8 takes 32 MiB and 70-90 ms a hash on this project's machines.
    passwordHashCost: 2 ** 15,
    bodiesInFlight: bodiesInFlightFrom(env),
    validateResponses: boolFrom(env, 'VALIDATE_RESPONSES', false),
    worker: boolFrom(env, 'WORKER', true),
    workerPollMs: intFrom(env, 'WORKER_POLL_MS', 500),
    workerConcurrency: Math.max(1, intFrom(env, 'WORKER_CONCURRENCY', 1024)),
    workerMediaConcurrency: Math.max(1, intFrom(env, 'WORKER_MEDIA_CONCURRENCY', 16)),
    sandboxLatencyMs: intFrom(env, 'SANDBOX_LATENCY_MS', 0, 0),
    workerLeaseSeconds: intFrom(env, 'WORKER_LEASE_SECONDS', 60),
    syncIntervalSeconds: intFrom(env, 'SYNC_INTERVAL_SECONDS', 300),
    preflightMinutes: intFrom(env, 'PREFLIGHT_MINUTES', 30, 0),
    logRequests: boolFrom(env, 'LOG_REQUESTS', false),
    storageLowBytes: intFrom(env, 'STORAGE_LOW_MB', 256, 0) * 1024 * 1024,
    trustProxy: trustProxyFrom(env.TRUST_PROXY),
    oauthThrottles: {
      registrationsPerHour: intFrom(env, 'OAUTH_REGISTRATIONS_PER_IP_PER_HOUR', 20),
      failedSignInsPerWindow: intFrom(env, 'OAUTH_FAILED_SIGN_INS_PER_IP', 50),
    },
    outboundAllowHosts: parseAllowHosts(env.OUTBOUND_ALLOW_HOSTS),
    clientMetadataDocuments: {
      timeoutMs: intFrom(env, 'OAUTH_CLIENT_METADATA_TIMEOUT_MS', 5_000),
      plainHttpHosts: parseAllowHosts(env.OAUTH_CLIENT_METADATA_HTTP_HOSTS),
    },
    networkOriginOverrides: parseOriginOverrides(env.NETWORK_ORIGIN_OVERRIDES),
    networks: {
      timeoutMs: intFrom(env, 'NETWORK_TIMEOUT_MS', 30_000),
      maxResponseBytes: intFrom(env, 'NETWORK_MAX_RESPONSE_BYTES', 10 * 1024 * 1024),
      pollWaitScale: 1,
      apps: networkAppsFrom(env),
    },
    media: {
      maxUploadBytes: intFrom(env, 'MEDIA_MAX_UPLOAD_BYTES', 100 * 1024 * 1024),
      maxImportBytes: intFrom(env, 'MEDIA_MAX_IMPORT_BYTES', 50 * 1024 * 1024),
      importTimeoutMs: intFrom(env, 'MEDIA_IMPORT_TIMEOUT_MS', 30_000),
      s3: env.S3_BUCKET
        ? {
            bucket: env.S3_BUCKET,
            region: env.S3_REGION || 'us-east-1',
            endpoint: env.S3_ENDPOINT || undefined,
            accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
            secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
            forcePathStyle: boolFrom(env, 'S3_FORCE_PATH_STYLE', Boolean(env.S3_ENDPOINT)),
            prefix: env.S3_PREFIX ?? 'media/',
          }
        : undefined,
    },
    ai: {
      baseUrl: env.AI_BASE_URL ? env.AI_BASE_URL.replace(/\/+$/, '') : undefined,
      apiKey: env.AI_API_KEY || undefined,
      model: env.AI_MODEL || 'gpt-4o-mini',
      imageModel: env.AI_IMAGE_MODEL || 'gpt-image-1',
      timeoutMs: intFrom(env, 'AI_TIMEOUT_MS', 60_000),
    },
  };
  return { ...config, ...overrides };
}

/**
 * BODY_BYTES_IN_FLIGHT and BODY_BYTES_IN_FLIGHT_PER_ADDRESS: 64 MiB and 8 MiB fit the 1 GiB heap Herald is run
 * with (docs/operations.md, Memory) many times over, and still let one address send eight bodies of the largest size at
 * once.
 */
function bodiesInFlightFrom(env: Env): BodiesInFlightConfig {
  const maxBodyBytes = intFrom(env, 'MAX_BODY_BYTES', 1024 * 1024);
  const bytesPerAddress = intFrom(env, 'BODY_BYTES_IN_FLIGHT_PER_ADDRESS', 8 * 1024 * 1024);
  const bytes = intFrom(env, 'BODY_BYTES_IN_FLIGHT', 64 * 1024 * 1024);
  // Otherwise a body of the largest size accepted could never be read.
  if (bytesPerAddress < maxBodyBytes) {
    throw new Error(
      `BODY_BYTES_IN_FLIGHT_PER_ADDRESS must be at least MAX_BODY_BYTES (${maxBodyBytes}), got ${bytesPerAddress}`,
    );
  }
  if (bytes < bytesPerAddress) {
    throw new Error(
      `BODY_BYTES_IN_FLIGHT must be at least BODY_BYTES_IN_FLIGHT_PER_ADDRESS (${bytesPerAddress}), got ${bytes}`,
    );
  }
  return { bytes, bytesPerAddress, timeoutMs: intFrom(env, 'BODY_TIMEOUT_MS', 10_000) };
}

/** The variables an operator sets to connect each OAuth network (docs/networks.md, Connecting networks). */
export const NETWORK_APP_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  x: ['X_CLIENT_ID', 'X_CLIENT_SECRET'],
  linkedin: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
  facebook: ['FACEBOOK_APP_ID', 'FACEBOOK_APP_SECRET'],
  instagram: ['INSTAGRAM_APP_ID', 'INSTAGRAM_APP_SECRET'],
  youtube: ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'],
  google_business: ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'],
  tiktok: ['TIKTOK_CLIENT_KEY', 'TIKTOK_CLIENT_SECRET'],
  threads: ['THREADS_APP_ID', 'THREADS_APP_SECRET'],
  pinterest: ['PINTEREST_APP_ID', 'PINTEREST_APP_SECRET'],
  slack: ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET'],
  reddit: ['REDDIT_CLIENT_ID', 'REDDIT_CLIENT_SECRET'],
};

/** Each network's app, when both halves of its credentials are set (one half alone is an operator's mistake). */
function networkAppsFrom(env: Env): NetworkAppsConfig {
  const app = (idName: string, secretName: string): OAuthApp | undefined => {
    const clientId = env[idName]?.trim();
    const clientSecret = env[secretName]?.trim();
    if (!clientId && !clientSecret) return undefined;
    if (!clientId || !clientSecret) throw new Error(`Set both ${idName} and ${secretName}, or neither.`);
    return { clientId, clientSecret };
  };
  const x = app('X_CLIENT_ID', 'X_CLIENT_SECRET');
  const linkedin = app('LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET');
  const facebook = app('FACEBOOK_APP_ID', 'FACEBOOK_APP_SECRET');
  const instagram = app('INSTAGRAM_APP_ID', 'INSTAGRAM_APP_SECRET');
  const google = app('GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET');
  const tiktok = app('TIKTOK_CLIENT_KEY', 'TIKTOK_CLIENT_SECRET');
  const pinterest = app('PINTEREST_APP_ID', 'PINTEREST_APP_SECRET');
  const threads = app('THREADS_APP_ID', 'THREADS_APP_SECRET');
  const slack = app('SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET');
  const reddit = app('REDDIT_CLIENT_ID', 'REDDIT_CLIENT_SECRET');
  return {
    x,
    linkedin: linkedin && {
      ...linkedin,
      apiVersion: env.LINKEDIN_VERSION?.trim() || '202510',
      organizations: env.LINKEDIN_ORGANIZATIONS?.trim().toLowerCase() !== 'false',
    },
    facebook: facebook && { ...facebook, graphVersion: env.FACEBOOK_GRAPH_VERSION?.trim() || 'v23.0' },
    instagram: instagram && { ...instagram, graphVersion: env.FACEBOOK_GRAPH_VERSION?.trim() || 'v23.0' },
    google: google && {
      ...google,
      youtubeDailyQuota: intFrom(env, 'YOUTUBE_DAILY_QUOTA', 10_000),
      youtubeDailyUploads: intFrom(env, 'YOUTUBE_DAILY_UPLOADS', 100),
      youtubeChunkBytes: chunkBytesFrom(env),
    },
    tiktok,
    pinterest,
    threads: threads && { ...threads, graphVersion: env.THREADS_GRAPH_VERSION?.trim() || 'v1.0' },
    slack,
    reddit: reddit && { ...reddit, userAgent: env.REDDIT_USER_AGENT?.trim() || undefined },
  };
}

/** YOUTUBE_UPLOAD_CHUNK_BYTES: Google takes resumable upload chunks in multiples of 256 KiB only. */
function chunkBytesFrom(env: Env): number {
  const quantum = 256 * 1024;
  const value = intFrom(env, 'YOUTUBE_UPLOAD_CHUNK_BYTES', 32 * quantum, quantum);
  if (value % quantum !== 0)
    throw new Error(`YOUTUBE_UPLOAD_CHUNK_BYTES must be a multiple of 262144 (256 KiB), got "${value}"`);
  return value;
}

/** NETWORK_ORIGIN_OVERRIDES: `https://real.origin=http://local:port` pairs, comma-separated; origins only. */
function parseOriginOverrides(raw: string | undefined): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const pair of (raw ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [from, to, ...rest] = pair.split('=');
    let fromUrl: URL;
    let toUrl: URL;
    try {
      if (rest.length > 0 || !to) throw new Error();
      fromUrl = new URL(from.trim());
      toUrl = new URL(to.trim());
    } catch {
      throw new Error(
        `NETWORK_ORIGIN_OVERRIDES: "${pair}" is not a pair of origins such as ` +
          'https://bsky.social=http://127.0.0.1:9102',
      );
    }
    overrides[fromUrl.origin] = toUrl.origin;
  }
  return overrides;
}

/** OUTBOUND_ALLOW_HOSTS: comma-separated hosts, lower-cased, IPv6 literals without brackets. */
function parseAllowHosts(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((host) =>
      host
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1'),
    )
    .filter((host) => host !== '');
}

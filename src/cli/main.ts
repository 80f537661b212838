/**
 * The herald command for administrators. Every command takes --json for machine-readable output.
 *   herald serve [--no-worker]
 *   herald migrate
 *   herald secrets rotate                          (seal stored secrets under a new master key; see docs/security.md)
 *   herald account create --name N --email E [--password P]
 *   herald user create --account A --email E --name N [--password P]
 *   herald workspace create --account A --name N [--approval]
 *   herald workspace approval --account A --workspace W --required true|false
 *   herald key create --account A --user U [--name N] [--manage-team]
 *   herald key revoke --account A --key K
 *   herald key list --account A
 *   herald channel add --account A --workspace W --handle H [--network sandbox] [--timezone Europe/Berlin] [--name N]
 *   herald channel connect bluesky --identifier H --app-password P [--service URL] [--workspace W] [--account A]
 *   herald channel connect wordpress --site URL --username U --application-password P [--workspace W] [--account A]
 *   herald channel connect nostr --private-key NSEC --relays "wss://... wss://..." [--workspace W] [--account A]
 *   herald channel connect mastodon --instance URL [--workspace W] [--account A]   (prints the URL to open, waits for the callback)
 *   herald channel connect youtube [--workspace W] [--account A]   (the same: Google's consent, then the callback)
 *   herald channel connect tiktok [--workspace W] [--account A]   (the same, through TikTok's consent)
 *   herald channel connect pinterest [--workspace W] [--account A]   (the same, through Pinterest's consent)
 *   herald channel connect linkedin [--page ORGANIZATION_ID] [--workspace W] [--account A]   (the same; the profile and every Page administered)
 *   herald channel connect facebook [--page PAGE_ID] [--workspace W] [--account A]   (the same, through Facebook Login; every Page granted)
 *   herald channel connect instagram [--login instagram|facebook] [--workspace W] [--account A]   (the same; Instagram Login, or Facebook Login for accounts linked to Pages)
 *   herald channel connect x [--workspace W] [--account A]   (the same, through X's consent)
 *   herald channel connect threads [--workspace W] [--account A]   (the same, through Threads' consent)
 *   herald channel connect telegram --bot-token T --chat @channel [--workspace W] [--account A]   (a @BotFather bot, channel admin)
 *   herald channel connect discord --bot-token T --channel-id ID [--workspace W] [--account A]   (a bot invited to the server)
 *   herald channel connect slack [--workspace W] [--account A]   (Slack's consent; the person picks the channel there)
 *   herald network check --channel C [--account A]   (verifies the token and permissions at the real network; posts nothing)
 *   herald channel slots --account A --channel C --slots "mon 09:00,tue 12:30"   (wall clock in the channel's timezone)
 *   herald media import --account A --workspace W --url U [--name FILE]   (direct image/video links only; SSRF-guarded)
 *   herald worker                                   (the publishing worker alone; `serve --no-worker` is the API alone)
 *   herald sandbox post-external --channel C --text T [--likes N] [--account A]
 *   herald sandbox fail --channel C --mode rate_limited|transient|permanent|auth_expired|timeout_after_post|slow_after_post|none [--times N] [--account A]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { HeraldError } from '../domain/errors.js';
import { importMediaFromUrl } from '../domain/media/media-import.js';
import * as provisioning from '../domain/provisioning.js';
import { toChannelView } from '../domain/directory.js';
import { connectChannel, CONNECT_FLOW_MS } from '../domain/networks/channel-connections.js';
import { checkChannelConnection } from '../domain/networks/connection-check.js';
import { parseSlotList } from '../domain/queue/slots.js';
import { MasterKeyError } from '../domain/secret-box.js';
import { postExternal, setSandboxFailure } from '../publishing/engine.js';
import { openDomain } from '../server.js';
import { rotateSecrets } from './secrets.js';
import { serve } from './serve.js';
import { runWorker } from './worker.js';

const options = {
  json: { type: 'boolean' },
  'no-worker': { type: 'boolean' },
  name: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  account: { type: 'string' },
  user: { type: 'string' },
  workspace: { type: 'string' },
  approval: { type: 'boolean' },
  required: { type: 'string' },
  key: { type: 'string' },
  'manage-team': { type: 'boolean' },
  network: { type: 'string' },
  handle: { type: 'string' },
  timezone: { type: 'string' },
  channel: { type: 'string' },
  slots: { type: 'string' },
  url: { type: 'string' },
  text: { type: 'string' },
  likes: { type: 'string' },
  mode: { type: 'string' },
  identifier: { type: 'string' },
  'app-password': { type: 'string' },
  service: { type: 'string' },
  instance: { type: 'string' },
  page: { type: 'string' },
  login: { type: 'string' },
  'bot-token': { type: 'string' },
  chat: { type: 'string' },
  'channel-id': { type: 'string' },
  site: { type: 'string' },
  username: { type: 'string' },
  'application-password': { type: 'string' },
  'private-key': { type: 'string' },
  relays: { type: 'string' },
  times: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

function need(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${String(name)} is required`);
  return value;
}

function count(values: Values, name: keyof Values, fallback: number): number {
  const value = values[name];
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`--${String(name)} takes a whole number, 0 or more`);
  return n;
}

class UsageError extends Error {}

type Command = (values: Values, deps: Awaited<ReturnType<typeof openDomain>>['deps'], argument?: string) => Promise<Record<string, unknown>>;

const commands: Record<string, Command> = {
  'account create': async (v, deps) =>
    provisioning.createAccount(deps, { name: need(v, 'name'), ownerEmail: need(v, 'email'), password: v.password }),
  'user create': async (v, deps) =>
    provisioning.createUser(deps, { accountId: need(v, 'account'), email: need(v, 'email'), name: need(v, 'name'), password: v.password }),
  'workspace create': async (v, deps) =>
    provisioning.createWorkspace(deps, { accountId: need(v, 'account'), name: need(v, 'name'), approvalRequired: v.approval ?? false }),
  'workspace approval': async (v, deps) => {
    const required = need(v, 'required');
    if (required !== 'true' && required !== 'false') throw new UsageError('--required takes true or false');
    await provisioning.setApprovalRequired(deps, { accountId: need(v, 'account'), workspaceId: need(v, 'workspace'), required: required === 'true' });
    return { workspaceId: v.workspace, approvalRequired: required === 'true' };
  },
  'key create': async (v, deps) =>
    provisioning.createApiKey(deps, {
      accountId: need(v, 'account'),
      userId: need(v, 'user'),
      name: v.name ?? 'cli',
      scopes: provisioning.parseScopes(v['manage-team'] ? ['manage_team'] : []),
    }),
  'key revoke': async (v, deps) => {
    await provisioning.revokeApiKey(deps, { accountId: need(v, 'account'), keyId: need(v, 'key') });
    return { keyId: v.key, revoked: true };
  },
  'key list': async (v, deps) => {
    const accountId = need(v, 'account');
    // An empty list for a mistyped id would read as "this account has no keys".
    if (!(await deps.repos.accounts.getAccount(accountId))) throw new UsageError(`No account ${accountId}`);
    return {
      keys: (await deps.repos.apiKeys.list(accountId)).map((k) => ({
        id: k.id, name: k.name, prefix: k.keyPrefix, scopes: k.scopes, revoked: k.revokedAt !== null,
        lastUsedAt: k.lastUsedAt === null ? null : new Date(k.lastUsedAt).toISOString(),
      })),
    };
  },
  'channel add': async (v, deps) =>
    provisioning.addChannel(deps, {
      accountId: need(v, 'account'),
      workspaceId: need(v, 'workspace'),
      network: v.network ?? 'sandbox',
      handle: need(v, 'handle'),
      name: v.name,
      timezone: v.timezone,
    }),
  'channel connect': async (v, deps, network) => {
    if (!network) throw new UsageError('Name the network: herald channel connect <network> ... (GET /v1/rest/networks lists them)');
    const principal = await provisioning.operatorPrincipal(deps, v.account);
    const fields: Record<string, string> = {};
    for (const [option, field] of [
      ['identifier', 'identifier'], ['app-password', 'appPassword'], ['service', 'service'], ['instance', 'instance'], ['page', 'page'],
      ['login', 'login'], ['site', 'site'], ['username', 'username'], ['application-password', 'applicationPassword'],
      ['private-key', 'privateKey'], ['relays', 'relays'], ['bot-token', 'botToken'], ['chat', 'chat'], ['channel-id', 'channelId'],
    ] as const) {
      if (v[option] !== undefined) fields[field] = v[option]!;
    }
    const startedAt = deps.now();
    const answer = await connectChannel(deps, principal, { network, workspaceId: v.workspace, fields });
    if (answer.kind === 'connected') return { channels: answer.channels };
    process.stderr.write(`Open this address to let Herald publish for you; waiting for ${network} to send you back (15 minutes):\n${answer.authorizationUrl}\n`);
    const deadline = startedAt + CONNECT_FLOW_MS;
    while (deps.now() < deadline) {
      const connected = (await deps.repos.channels.list(principal.accountId)).filter((c) => c.network === network && (c.connectedAt ?? 0) >= startedAt);
      if (connected.length > 0) return { channels: connected.map(toChannelView) };
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    throw new UsageError(`No ${network} account was connected within 15 minutes; run the command again.`);
  },
  'network check': async (v, deps) => ({ ...(await checkChannelConnection(deps, { accountId: v.account, channelId: need(v, 'channel') })) }),
  'channel slots': async (v, deps) => {
    const accountId = need(v, 'account');
    const channelId = need(v, 'channel');
    if (v.slots === undefined) throw new UsageError('--slots is required, e.g. --slots "mon 09:00,tue 12:30" (an empty string removes every slot)');
    const slots = parseSlotList(v.slots);
    if (!(await deps.repos.channels.setSlots(accountId, channelId, slots))) throw new UsageError(`No channel ${channelId} in account ${accountId}`);
    return { channelId, slots };
  },
  'media import': async (v, deps) => {
    // An administrator acts for the account: the principal carries the account and the posting scopes only.
    const principal = { accountId: need(v, 'account'), userId: 'cli', tokenId: 'cli', tokenKind: 'api_key' as const, scopes: provisioning.parseScopes([]) };
    return { ...(await importMediaFromUrl(deps, principal, { url: need(v, 'url'), workspaceId: need(v, 'workspace'), fileName: v.name })) };
  },
  'sandbox post-external': async (v, deps) =>
    postExternal(deps, { accountId: v.account, channelId: need(v, 'channel'), text: need(v, 'text'), likes: count(v, 'likes', 0) }),
  'sandbox fail': async (v, deps) =>
    setSandboxFailure(deps, { accountId: v.account, channelId: need(v, 'channel'), mode: need(v, 'mode'), times: count(v, 'times', 1) }),
  migrate: async () => ({ migrated: true }),
};

function print(result: Record<string, unknown>, json: boolean | undefined): void {
  if (json) process.stdout.write(JSON.stringify(result) + '\n');
  else for (const [key, value] of Object.entries(result)) process.stdout.write(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  const config = loadConfig();
  if (positionals[0] === 'serve') {
    await serve({ ...config, worker: values['no-worker'] ? false : config.worker });
    return -1;
  }
  if (positionals[0] === 'worker') {
    await runWorker(config);
    return -1;
  }
  if (positionals.join(' ') === 'secrets rotate') {
    print(await rotateSecrets(config), values.json);
    return 0;
  }
  const name = positionals.slice(0, positionals[0] === 'migrate' ? 1 : 2).join(' ');
  const command = commands[name];
  if (!command) {
    process.stderr.write(`Unknown command "${positionals.join(' ')}". Commands: serve, worker, secrets rotate, ${Object.keys(commands).join(', ')}\n`);
    return 2;
  }
  const { db, deps } = await openDomain(config);
  try {
    print(await command(values, deps, positionals[2]), values.json);
    return 0;
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    if (error instanceof HeraldError || error instanceof UsageError || error instanceof MasterKeyError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`herald: ${(error as Error).message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`herald: ${(error as Error).stack ?? error}\n`);
      process.exitCode = 1;
    }
  },
);

/**
 * The herald command for administrators: `herald --help` lists the commands, `herald <command> --help` says what
 * one does and what each of its options means (both built from the table below, so they never drift from it).
 * Every command takes --json for machine-readable output. A command that acts in an account, user or workspace
 * takes the only one there is when its option is left out, and lists them when there are several
 * (domain/operator-choices.ts).
 */
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.js';
import type { DomainDeps } from '../domain/deps.js';
import { HeraldError } from '../domain/errors.js';
import { NETWORK_CAPABILITIES } from '../domain/networks/capabilities.js';
import { MasterKeyError } from '../domain/secret-box.js';
import type { openDomain } from '../open-domain.js';
import { CliError } from './cli-error.js';

// What the commands do is imported when one runs: `herald --help` and a mistyped command start without the server,
// Knex, the database drivers and the connectors.
const tools = () => import('./command-tools.js');

interface OptionSpec {
  type: 'string' | 'boolean';
  value?: string;
  help: string;
}
type Values = Record<string, string | boolean | undefined>;

interface Context {
  values: Values;
  config: Config;
  /** The word after the command (channel connect <network>). */
  argument: string | undefined;
  /** The database, migrated, and the domain over it; opened on first use and closed when the command ends. */
  domain(): Promise<DomainDeps>;
}

interface Command {
  group: string;
  summary: string;
  /** The word the command takes after its name, if any. */
  argument?: { name: string; help: string };
  options: Record<string, OptionSpec>;
  /** A result to print, or 'running' for a command that goes on until it is stopped. */
  run(context: Context): Promise<Record<string, unknown> | 'running'>;
}

const ACCOUNT: OptionSpec = {
  type: 'string',
  value: 'ID',
  help: 'The account (default: the only one; when there are several they are listed)',
};
const WORKSPACE: OptionSpec = {
  type: 'string',
  value: 'ID',
  help: "The workspace (default: the account's only one; listed when there are several)",
};
const USER: OptionSpec = {
  type: 'string',
  value: 'ID',
  help: "The user (default: the account's only one; listed when there are several)",
};
const CHANNEL: OptionSpec = {
  type: 'string',
  value: 'ID',
  help: 'The channel (herald account list or GET /v1/rest/channels shows ids)',
};
const COMMON: Record<string, OptionSpec> = {
  json: { type: 'boolean', help: 'Print the result as one line of JSON' },
  help: { type: 'boolean', help: 'Say what the command does and what its options mean' },
};

function text(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function need(values: Values, name: string): string {
  const value = text(values, name);
  if (value === undefined || value === '') throw new CliError(`--${name} is required`);
  return value;
}

function count(values: Values, name: string, fallback: number): number {
  const value = text(values, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new CliError(`--${name} takes a whole number, 0 or more`);
  return n;
}

const commands: Record<string, Command> = {
  serve: {
    group: 'Running Herald',
    summary: 'Serve the REST API, MCP and the web app, and publish (unless --no-worker), until stopped',
    options: {
      'no-worker': { type: 'boolean', help: 'Serve without the publishing worker (run herald worker beside it)' },
    },
    run: async ({ values, config }) => {
      const { serve } = await import('./serve.js');
      await serve({ ...config, worker: values['no-worker'] ? false : config.worker });
      return 'running';
    },
  },
  worker: {
    group: 'Running Herald',
    summary: 'Run the publishing worker alone, without HTTP (until stopped)',
    options: {},
    run: async ({ config }) => {
      const { runWorker } = await import('./worker.js');
      await runWorker(config);
      return 'running';
    },
  },
  status: {
    group: 'Running Herald',
    summary: 'Say how this instance stands: address, database, worker, channels to reconnect, webhooks off',
    options: {},
    run: async ({ config }) => ({ ...(await (await import('./status.js')).instanceStatus(config)) }),
  },
  migrate: {
    group: 'Running Herald',
    summary: "Bring the database's tables up to this version (serve and worker do it too when they start)",
    options: {},
    run: async ({ domain }) => {
      await domain();
      return { migrated: true };
    },
  },
  'secrets rotate': {
    group: 'Running Herald',
    summary: 'Seal every stored secret again under a new master key (docs/security.md)',
    options: {},
    run: async ({ config }) => (await import('./secrets.js')).rotateSecrets(config),
  },
  'account create': {
    group: 'Accounts and access',
    summary: 'Create an account with its owner and a first workspace',
    options: {
      name: { type: 'string', value: 'NAME', help: "The account's name (required)" },
      email: { type: 'string', value: 'EMAIL', help: "The owner's email (required)" },
      password: {
        type: 'string',
        value: 'PASSWORD',
        help: "The owner's password for the web app, 8 characters or more (default: none, no sign-in)",
      },
    },
    run: async ({ values, domain }) =>
      (await tools()).provisioning.createAccount(await domain(), {
        name: need(values, 'name'),
        ownerEmail: need(values, 'email'),
        password: text(values, 'password'),
      }),
  },
  'account list': {
    group: 'Accounts and access',
    summary: 'List the accounts with their users, workspaces and channels, by name and id',
    options: {},
    run: async ({ domain }) => {
      const deps = await domain();
      const accounts = await deps.repos.accounts.listAccounts(1_000);
      return {
        accounts: await Promise.all(
          accounts.map(async (account) => ({
            id: account.id,
            name: account.name,
            users: (await deps.repos.accounts.listMembers(account.id)).map(({ user }) => ({
              id: user.id,
              email: user.email,
              name: user.name,
            })),
            workspaces: (await deps.repos.accounts.listWorkspaces(account.id)).map((w) => ({ id: w.id, name: w.name })),
            channels: (await deps.repos.channels.list(account.id)).map((c) => ({
              id: c.id,
              network: c.network,
              handle: c.handle,
              status: c.status ?? 'active',
            })),
          })),
        ),
      };
    },
  },
  'user create': {
    group: 'Accounts and access',
    summary: 'Add a user to an account (give them a workspace role from the app or REST)',
    options: {
      account: ACCOUNT,
      email: { type: 'string', value: 'EMAIL', help: 'Their email (required)' },
      name: { type: 'string', value: 'NAME', help: 'Their name (required)' },
      password: {
        type: 'string',
        value: 'PASSWORD',
        help: 'Their password for the web app, 8 characters or more (default: none)',
      },
    },
    run: async ({ values, domain }) => {
      const { chooseAccount, provisioning } = await tools();
      const deps = await domain();
      return provisioning.createUser(deps, {
        accountId: await chooseAccount(deps, text(values, 'account')),
        email: need(values, 'email'),
        name: need(values, 'name'),
        password: text(values, 'password'),
      });
    },
  },
  'workspace create': {
    group: 'Accounts and access',
    summary: 'Add a workspace to an account',
    options: {
      account: ACCOUNT,
      name: { type: 'string', value: 'NAME', help: "The workspace's name (required)" },
      approval: { type: 'boolean', help: 'Hold its posts for approval before they publish' },
    },
    run: async ({ values, domain }) => {
      const { chooseAccount, provisioning } = await tools();
      const deps = await domain();
      return provisioning.createWorkspace(deps, {
        accountId: await chooseAccount(deps, text(values, 'account')),
        name: need(values, 'name'),
        approvalRequired: values.approval === true,
      });
    },
  },
  'workspace approval': {
    group: 'Accounts and access',
    summary: "Turn a workspace's approval requirement on or off, for posts written from then on",
    options: {
      account: ACCOUNT,
      workspace: WORKSPACE,
      required: { type: 'string', value: 'true|false', help: 'Whether posts need approval (required)' },
    },
    run: async ({ values, domain }) => {
      const { chooseAccount, chooseWorkspace, provisioning } = await tools();
      const required = need(values, 'required');
      if (required !== 'true' && required !== 'false') throw new CliError('--required takes true or false');
      const deps = await domain();
      const accountId = await chooseAccount(deps, text(values, 'account'));
      const workspaceId = await chooseWorkspace(deps, accountId, text(values, 'workspace'));
      await provisioning.setApprovalRequired(deps, { accountId, workspaceId, required: required === 'true' });
      return { workspaceId, approvalRequired: required === 'true' };
    },
  },
  'key create': {
    group: 'Accounts and access',
    summary: 'Create an API key acting as a user; the key is shown once, and stored only as a hash',
    options: {
      account: ACCOUNT,
      user: USER,
      name: { type: 'string', value: 'NAME', help: 'A name to tell the key by (default: cli)' },
      'manage-team': {
        type: 'boolean',
        help: "Let the key manage members, workspaces and webhooks, as far as the user's role allows",
      },
    },
    run: async ({ values, domain }) => {
      const { chooseAccount, chooseUser, provisioning } = await tools();
      const deps = await domain();
      const accountId = await chooseAccount(deps, text(values, 'account'));
      return provisioning.createApiKey(deps, {
        accountId,
        userId: await chooseUser(deps, accountId, text(values, 'user')),
        name: text(values, 'name') ?? 'cli',
        scopes: provisioning.parseScopes(values['manage-team'] ? ['manage_team'] : []),
      });
    },
  },
  'key revoke': {
    group: 'Accounts and access',
    summary: 'Revoke an API key: it stops working at once',
    options: {
      account: ACCOUNT,
      key: { type: 'string', value: 'ID', help: "The key's id, from herald key list (required)" },
    },
    run: async ({ values, domain }) => {
      const { chooseAccount, provisioning } = await tools();
      const deps = await domain();
      const keyId = need(values, 'key');
      await provisioning.revokeApiKey(deps, { accountId: await chooseAccount(deps, text(values, 'account')), keyId });
      return { keyId, revoked: true };
    },
  },
  'key list': {
    group: 'Accounts and access',
    summary: "List an account's API keys (their ids and prefixes, never the keys)",
    options: { account: ACCOUNT },
    run: async ({ values, domain }) => {
      const { chooseAccount } = await tools();
      const deps = await domain();
      const accountId = await chooseAccount(deps, text(values, 'account'));
      return {
        keys: (await deps.repos.apiKeys.list(accountId)).map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.keyPrefix,
          scopes: k.scopes,
          revoked: k.revokedAt !== null,
          lastUsedAt: k.lastUsedAt === null ? null : new Date(k.lastUsedAt).toISOString(),
        })),
      };
    },
  },
  'channel add': {
    group: 'Channels and media',
    summary: 'Add a channel that needs no sign-in (the sandbox); real networks use channel connect',
    options: {
      account: ACCOUNT,
      workspace: WORKSPACE,
      handle: { type: 'string', value: 'HANDLE', help: "The channel's handle, e.g. @acme (required)" },
      network: { type: 'string', value: 'NETWORK', help: 'The network (default: sandbox)' },
      timezone: {
        type: 'string',
        value: 'ZONE',
        help: "The channel's time zone for its posting schedule, e.g. Europe/Berlin (default: UTC)",
      },
      name: { type: 'string', value: 'NAME', help: "The channel's name as people see it (default: the handle)" },
    },
    run: async ({ values, domain }) => {
      const { chooseAccount, chooseWorkspace, provisioning } = await tools();
      const deps = await domain();
      const accountId = await chooseAccount(deps, text(values, 'account'));
      return provisioning.addOperatorChannel(deps, {
        accountId,
        workspaceId: await chooseWorkspace(deps, accountId, text(values, 'workspace')),
        network: text(values, 'network') ?? 'sandbox',
        handle: need(values, 'handle'),
        name: text(values, 'name'),
        timezone: text(values, 'timezone'),
      });
    },
  },
  'channel connect': {
    group: 'Channels and media',
    summary: "Connect a network's account as a channel (prints the network's consent address and waits)",
    argument: { name: 'NETWORK', help: `One of ${Object.keys(NETWORK_CAPABILITIES).join(', ')}` },
    options: {
      account: ACCOUNT,
      workspace: WORKSPACE,
      identifier: { type: 'string', value: 'HANDLE', help: 'bluesky: the handle or email to sign in with' },
      'app-password': {
        type: 'string',
        value: 'PASSWORD',
        help: "bluesky: an app password (Settings > App passwords), never the account's password",
      },
      service: { type: 'string', value: 'URL', help: 'bluesky: the PDS to sign in at (default: https://bsky.social)' },
      instance: { type: 'string', value: 'URL', help: 'mastodon: the server, e.g. https://mastodon.social' },
      page: {
        type: 'string',
        value: 'ID',
        help: 'linkedin, facebook: only this organization or Page (default: all granted)',
      },
      login: {
        type: 'string',
        value: 'instagram|facebook',
        help: 'instagram: Instagram Login, or Facebook Login for accounts linked to Pages',
      },
      site: { type: 'string', value: 'URL', help: 'wordpress: the site, e.g. https://blog.example.com' },
      username: { type: 'string', value: 'NAME', help: 'wordpress: the user Herald publishes as' },
      'application-password': {
        type: 'string',
        value: 'PASSWORD',
        help: "wordpress: an Application Password (Users > Profile), never the user's password",
      },
      'private-key': {
        type: 'string',
        value: 'NSEC',
        help: 'nostr: the private key (nsec or hex) notes are signed with',
      },
      bunker: {
        type: 'string',
        value: 'bunker://...',
        help: 'nostr: a NIP-46 remote signer that signs instead of a private key',
      },
      relays: {
        type: 'string',
        value: '"wss://... wss://..."',
        help: 'nostr: the relays to publish to, separated by spaces',
      },
      'bot-token': { type: 'string', value: 'TOKEN', help: "telegram, discord: the bot's token" },
      chat: { type: 'string', value: '@channel', help: 'telegram: the channel or group, the bot one of its admins' },
      'channel-id': { type: 'string', value: 'ID', help: 'discord: the channel the bot posts in' },
      'webhook-url': {
        type: 'string',
        value: 'URL',
        help: "discord: the channel's incoming webhook, instead of a bot",
      },
      location: {
        type: 'string',
        value: 'ID',
        help: 'google_business: only this location (locations/ID; default: every location managed)',
      },
      subreddit: { type: 'string', value: 'r/NAME', help: 'reddit: the subreddit the channel posts to' },
    },
    run: async ({ values, domain, argument: network }) => {
      const { toChannelView, CONNECT_FLOW_MS, connectChannel, provisioning } = await tools();
      if (!network)
        throw new CliError(
          'Name the network: herald channel connect <network> ... (herald channel connect --help lists them)',
        );
      const deps = await domain();
      const principal = await provisioning.operatorPrincipal(deps, text(values, 'account'));
      const fields: Record<string, string> = {};
      for (const [option, field] of [
        ['identifier', 'identifier'],
        ['app-password', 'appPassword'],
        ['service', 'service'],
        ['instance', 'instance'],
        ['page', 'page'],
        ['login', 'login'],
        ['site', 'site'],
        ['username', 'username'],
        ['application-password', 'applicationPassword'],
        ['private-key', 'privateKey'],
        ['bunker', 'bunker'],
        ['relays', 'relays'],
        ['bot-token', 'botToken'],
        ['chat', 'chat'],
        ['channel-id', 'channelId'],
        ['webhook-url', 'webhookUrl'],
        ['location', 'location'],
        ['subreddit', 'subreddit'],
      ] as const) {
        const value = text(values, option);
        if (value !== undefined) fields[field] = value;
      }
      const startedAt = deps.now();
      const answer = await connectChannel(deps, principal, { network, workspaceId: text(values, 'workspace'), fields });
      if (answer.kind === 'connected') return { channels: answer.channels };
      process.stderr.write(
        `Open this address to let Herald publish for you; waiting for ${network} to send you back (15 minutes):\n` +
          `${answer.authorizationUrl}\n`,
      );
      const deadline = startedAt + CONNECT_FLOW_MS;
      while (deps.now() < deadline) {
        const connected = (await deps.repos.channels.list(principal.accountId)).filter(
          (c) => c.network === network && (c.connectedAt ?? 0) >= startedAt,
        );
        if (connected.length > 0) return { channels: connected.map(toChannelView) };
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      throw new CliError(`No ${network} account was connected within 15 minutes; run the command again.`);
    },
  },
  'channel slots': {
    group: 'Channels and media',
    summary: "Set a channel's posting schedule, the times its queue fills",
    options: {
      account: ACCOUNT,
      channel: CHANNEL,
      slots: {
        type: 'string',
        value: 'LIST',
        help: 'Days and times in the channel\'s zone, e.g. "mon 09:00,tue 12:30"; "" removes every slot (required)',
      },
    },
    run: async ({ values, domain }) => {
      const { chooseAccount, parseSlotList } = await tools();
      const deps = await domain();
      const accountId = await chooseAccount(deps, text(values, 'account'));
      const channelId = need(values, 'channel');
      const listed = text(values, 'slots');
      if (listed === undefined)
        throw new CliError(
          '--slots is required, e.g. --slots "mon 09:00,tue 12:30" (an empty string removes every slot)',
        );
      const slots = parseSlotList(listed);
      if (!(await deps.repos.channels.setSlots(accountId, channelId, slots)))
        throw new CliError(`No channel ${channelId} in account ${accountId}`);
      return { channelId, slots };
    },
  },
  'network check': {
    group: 'Channels and media',
    summary: "Check a channel's token and permissions at the real network (posts nothing)",
    options: {
      account: { ...ACCOUNT, help: "The channel's account (default: whichever holds the channel)" },
      channel: CHANNEL,
    },
    run: async ({ values, domain }) => ({
      ...(await (
        await tools()
      ).checkChannelConnection(await domain(), {
        accountId: text(values, 'account'),
        channelId: need(values, 'channel'),
      })),
    }),
  },
  'media import': {
    group: 'Channels and media',
    summary: 'Copy an image or video from a direct link into the media library',
    options: {
      account: ACCOUNT,
      workspace: WORKSPACE,
      url: { type: 'string', value: 'URL', help: 'A public, direct link to the file (required)' },
      name: { type: 'string', value: 'FILE', help: "The file's name in the library (default: taken from the link)" },
    },
    run: async ({ values, domain }) => {
      const { importMediaFromUrl, chooseAccount, chooseWorkspace, provisioning } = await tools();
      const deps = await domain();
      const accountId = await chooseAccount(deps, text(values, 'account'));
      const workspaceId = await chooseWorkspace(deps, accountId, text(values, 'workspace'));
      // An administrator acts for the account: the principal carries the account and the posting scopes only.
      const principal = {
        accountId,
        userId: 'cli',
        tokenId: 'cli',
        tokenKind: 'api_key' as const,
        scopes: provisioning.parseScopes([]),
      };
      return {
        ...(await importMediaFromUrl(deps, principal, {
          url: need(values, 'url'),
          workspaceId,
          fileName: text(values, 'name'),
        })),
      };
    },
  },
  'sandbox post-external': {
    group: 'The sandbox network (for trying Herald out)',
    summary: 'Make a post on a sandbox channel as if written outside Herald',
    options: {
      account: { ...ACCOUNT, help: "The channel's account (default: whichever holds the channel)" },
      channel: CHANNEL,
      text: { type: 'string', value: 'TEXT', help: "The post's text (required)" },
      likes: { type: 'string', value: 'N', help: 'How many likes it has (default: 0)' },
    },
    run: async ({ values, domain }) =>
      (await tools()).postExternal(await domain(), {
        accountId: text(values, 'account'),
        channelId: need(values, 'channel'),
        text: need(values, 'text'),
        likes: count(values, 'likes', 0),
      }),
  },
  'sandbox fail': {
    group: 'The sandbox network (for trying Herald out)',
    summary: "Make a sandbox channel's next publishes fail in a chosen way",
    options: {
      account: { ...ACCOUNT, help: "The channel's account (default: whichever holds the channel)" },
      channel: CHANNEL,
      mode: {
        type: 'string',
        value: 'MODE',
        help:
          'rate_limited, transient, permanent, auth_expired, timeout_after_post, slow_after_post, or none to stop ' +
          '(required)',
      },
      times: { type: 'string', value: 'N', help: 'How many publishes fail (default: 1)' },
    },
    run: async ({ values, domain }) =>
      (await tools()).setSandboxFailure(await domain(), {
        accountId: text(values, 'account'),
        channelId: need(values, 'channel'),
        mode: need(values, 'mode'),
        times: count(values, 'times', 1),
      }),
  },
};

function optionLine(name: string, spec: OptionSpec): [string, string] {
  return [`--${name}${spec.value ? ` ${spec.value}` : ''}`, spec.help];
}

function columns(rows: [string, string][], width = Math.max(...rows.map(([left]) => left.length)) + 2): string {
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
}

function generalHelp(): string {
  const groups = new Map<string, [string, string][]>();
  for (const [name, command] of Object.entries(commands)) {
    const rows = groups.get(command.group) ?? [];
    rows.push([command.argument ? `${name} <${command.argument.name}>` : name, command.summary]);
    groups.set(command.group, rows);
  }
  const width = Math.max(...[...groups.values()].flat().map(([left]) => left.length)) + 2;
  return [
    'herald: run and administer Herald, a self-hostable social publishing service.',
    '',
    'Usage: herald <command> [options]',
    '       herald <command> --help     what a command does and what each of its options means',
    '',
    ...[...groups].flatMap(([group, rows]) => [`${group}:`, columns(rows, width), '']),
    'Every command takes --json to print its result as JSON. Settings (PORT, DATABASE_URL, DATA_DIR, ...) come',
    'from the environment: docs/configuration.md.',
    '',
  ].join('\n');
}

function commandHelp(name: string): string {
  const command = commands[name];
  const options = { ...command.options, ...COMMON };
  const usage = [`herald ${name}`, command.argument ? `<${command.argument.name}>` : '', '[options]']
    .filter(Boolean)
    .join(' ');
  return [
    `herald ${name}: ${command.summary}.`,
    '',
    `Usage: ${usage}`,
    ...(command.argument ? ['', columns([[`<${command.argument.name}>`, command.argument.help]])] : []),
    '',
    'Options:',
    columns(Object.entries(options).map(([option, spec]) => optionLine(option, spec))),
    '',
  ].join('\n');
}

function print(result: Record<string, unknown>, json: boolean): void {
  process.stdout.write(json ? JSON.stringify(result) + '\n' : readable(result, ''));
}

/** A result as indented lines for a person: lists item by item, an empty one as "none". */
function readable(value: Record<string, unknown>, indent: string): string {
  return Object.entries(value)
    .map(([key, item]) => {
      if (Array.isArray(item)) {
        if (item.length === 0) return `${indent}${key}: none\n`;
        if (item.every((entry) => typeof entry !== 'object' || entry === null))
          return `${indent}${key}: ${item.join(', ')}\n`;
        return (
          `${indent}${key}:\n` +
          item.map((entry) => `${indent}  -\n${readable(entry as Record<string, unknown>, `${indent}    `)}`).join('')
        );
      }
      if (typeof item === 'object' && item !== null)
        return `${indent}${key}:\n${readable(item as Record<string, unknown>, `${indent}  `)}`;
      return `${indent}${key}: ${String(item)}\n`;
    })
    .join('');
}

/** The command the words name: two words (key create), else one (serve). */
function commandNamed(words: string[]): string | undefined {
  const two = words.slice(0, 2).join(' ');
  if (commands[two]) return two;
  return commands[words[0] ?? ''] ? words[0] : undefined;
}

function allOptions(): Record<string, { type: 'string' | 'boolean' }> {
  const all: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const command of Object.values(commands))
    for (const [name, spec] of Object.entries(command.options)) all[name] = { type: spec.type };
  return all;
}

async function main(argv: string[]): Promise<number> {
  // A first, lenient reading finds the command's words; its own options are then read strictly.
  const { positionals: words, values: loose } = parseArgs({
    args: argv,
    options: { ...allOptions(), json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: false,
  });
  if (words[0] === 'help') words.shift();
  const wantsHelp = loose.help === true || argv[0] === 'help';
  if (words.length === 0) {
    (wantsHelp ? process.stdout : process.stderr).write(generalHelp());
    return wantsHelp ? 0 : 2;
  }
  const name = commandNamed(words);
  if (!name) {
    throw new CliError(
      `Unknown command "${words.join(' ')}". The commands: ${Object.keys(commands).join(', ')}. ` +
        'herald --help says what each does.',
    );
  }
  const command = commands[name];
  if (wantsHelp) {
    process.stdout.write(commandHelp(name));
    return 0;
  }
  const specs = { ...command.options, ...COMMON };
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(specs).map(([option, spec]) => [option, { type: spec.type }])),
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const known = Object.keys(specs)
        .map((option) => `--${option}`)
        .join(', ');
      throw new CliError(
        `${(error as Error).message.split('.')[0]} for herald ${name}. Its options: ${known} ` +
          `(herald ${name} --help says what each does).`,
      );
    }
    throw error;
  }
  const extra = positionals.slice(name.split(' ').length + (command.argument ? 1 : 0));
  if (extra.length > 0)
    throw new CliError(
      `herald ${name} does not take "${extra.join(' ')}" (herald ${name} --help shows how it is used).`,
    );
  const config = loadConfig();
  let opened: Awaited<ReturnType<typeof openDomain>> | undefined;
  const context: Context = {
    values,
    config,
    argument: command.argument ? positionals[name.split(' ').length] : undefined,
    domain: async () => (opened ??= await (await import('../open-domain.js')).openDomain(config)).deps,
  };
  try {
    const result = await command.run(context);
    if (result === 'running') return -1;
    print(result, values.json === true);
    return 0;
  } finally {
    await opened?.db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    if (error instanceof CliError) {
      process.stderr.write(`herald: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else if (
      error instanceof HeraldError ||
      error instanceof MasterKeyError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      process.stderr.write(`herald: ${(error as Error).message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`herald: ${(error as Error).stack ?? error}\n`);
      process.exitCode = 1;
    }
  },
);

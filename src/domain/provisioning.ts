/**
 * Administrator actions (the herald CLI and the demo seed): accounts, users, workspaces, API keys
 * and channels. Keys are shown once and stored only as a hash; a channel's network must be one Herald has a
 * connector for (the capabilities table), and one an operator adds by hand needs no sign-in (addOperatorChannel).
 */
import crypto from 'node:crypto';
import { isEmailTaken, type MemberRole } from '../db/repositories/accounts.js';
import { API_KEY_PREFIX, forgetResolvedTokens } from './authentication.js';
import type { DomainDeps } from './deps.js';
import { ConflictError, NotFoundError, ValidationError } from './errors.js';
import { newId } from './ids.js';
import { capabilitiesOf } from './networks/capabilities.js';
import { chooseAccount } from './operator-choices.js';
import { hashPassword } from './passwords.js';
import { REQUIRED_SCOPES, isScope, type Principal, type Scope } from './principal.js';
import { hashSecret, newSecret } from './secrets.js';

function requireTimeZone(timezone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return timezone;
  } catch {
    throw new ValidationError(`Unknown time zone "${timezone}"; use an IANA name such as Europe/Berlin.`);
  }
}

export async function createAccount(
  deps: DomainDeps,
  input: { name: string; ownerEmail: string; ownerName?: string; password?: string },
) {
  const now = deps.now();
  const accountId = newId();
  await deps.repos.accounts.createAccount({ id: accountId, name: input.name, createdAt: now });
  const user = await createUser(deps, {
    accountId,
    email: input.ownerEmail,
    name: input.ownerName ?? input.name,
    password: input.password,
  });
  const workspace = await createWorkspace(deps, { accountId, name: input.name });
  await deps.repos.accounts.addMember(workspace.id, user.id, 'owner');
  return { accountId, userId: user.id, workspaceId: workspace.id };
}

export async function createUser(
  deps: DomainDeps,
  input: { accountId: string; email: string; name: string; password?: string },
) {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email))
    throw new ValidationError(`"${input.email}" is not an email address.`, [
      { path: 'email', message: 'Give an email address, such as name@example.com.' },
    ]);
  if (await deps.repos.accounts.findUserByEmail(email))
    throw new ConflictError('email_taken', `A user with email ${email} already exists.`);
  if (!(await deps.repos.accounts.getAccount(input.accountId)))
    throw new NotFoundError(`No account ${input.accountId}.`);
  if (input.password !== undefined && input.password.length < 8)
    throw new ValidationError('A password needs at least 8 characters.');
  const id = newId();
  const passwordHash =
    input.password === undefined ? null : await hashPassword(input.password, deps.config.passwordHashCost);
  try {
    await deps.repos.accounts.createUser({
      id,
      accountId: input.accountId,
      email,
      name: input.name,
      passwordHash,
      createdAt: deps.now(),
    });
  } catch (error) {
    // Two requests adding one email at once both pass the check above; the loser is told as if it had come second.
    if (isEmailTaken(error)) throw new ConflictError('email_taken', `A user with email ${email} already exists.`);
    throw error;
  }
  return { id, email };
}

export async function createWorkspace(
  deps: DomainDeps,
  input: { accountId: string; name: string; approvalRequired?: boolean },
) {
  const id = newId();
  await deps.repos.accounts.createWorkspace({
    id,
    accountId: input.accountId,
    name: input.name,
    approvalRequired: input.approvalRequired ?? false,
    createdAt: deps.now(),
  });
  return { id };
}

export async function addMember(
  deps: DomainDeps,
  input: { accountId: string; workspaceId: string; userId: string; role: MemberRole },
) {
  if (!(await deps.repos.accounts.getWorkspace(input.accountId, input.workspaceId)))
    throw new NotFoundError(`No workspace ${input.workspaceId} in account ${input.accountId}.`);
  if (!(await deps.repos.accounts.getUser(input.accountId, input.userId)))
    throw new NotFoundError(`No user ${input.userId} in account ${input.accountId}.`);
  await deps.repos.accounts.addMember(input.workspaceId, input.userId, input.role);
}

export async function setApprovalRequired(
  deps: DomainDeps,
  input: { accountId: string; workspaceId: string; required: boolean },
) {
  if (!(await deps.repos.accounts.setApprovalRequired(input.accountId, input.workspaceId, input.required))) {
    throw new NotFoundError(`No workspace ${input.workspaceId} in account ${input.accountId}.`);
  }
}

export function parseScopes(list: readonly string[]): Scope[] {
  const unknown = list.filter((s) => !isScope(s));
  if (unknown.length > 0)
    throw new ValidationError(
      `Unknown scope ${unknown.join(', ')}; scopes are read_profile, manage_post, manage_team.`,
    );
  return [...new Set<Scope>([...REQUIRED_SCOPES, ...(list as Scope[])])];
}

/** Creates an API key for a user; the key itself is returned once and never stored. */
export async function createApiKey(
  deps: DomainDeps,
  input: { accountId: string; userId: string; name: string; scopes: Scope[] },
) {
  if (!(await deps.repos.accounts.getUser(input.accountId, input.userId)))
    throw new NotFoundError(`No user ${input.userId} in account ${input.accountId}.`);
  const key = newSecret(API_KEY_PREFIX);
  const id = newId();
  await deps.repos.apiKeys.create({
    id,
    accountId: input.accountId,
    userId: input.userId,
    name: input.name,
    keyHash: hashSecret(key),
    keyPrefix: key.slice(0, 10),
    scopes: input.scopes,
    createdAt: deps.now(),
    lastUsedAt: null,
    revokedAt: null,
  });
  return { id, key, scopes: input.scopes };
}

export async function revokeApiKey(deps: DomainDeps, input: { accountId: string; keyId: string }) {
  const revoked = await deps.repos.apiKeys.revoke(input.accountId, input.keyId, deps.now());
  forgetResolvedTokens(deps);
  if (!revoked) {
    throw new NotFoundError(`No active API key ${input.keyId} in account ${input.accountId}.`);
  }
}

export async function addChannel(
  deps: DomainDeps,
  input: { accountId: string; workspaceId: string; network: string; handle: string; name?: string; timezone?: string },
) {
  if (!(await deps.repos.accounts.getWorkspace(input.accountId, input.workspaceId)))
    throw new NotFoundError(`No workspace ${input.workspaceId} in account ${input.accountId}.`);
  // Stored under the table's own name ("twitter" becomes "x"), the name connectors are registered under.
  const network = capabilitiesOf(input.network).name;
  const id = newId();
  await deps.repos.channels.create({
    id,
    accountId: input.accountId,
    workspaceId: input.workspaceId,
    network,
    handle: input.handle,
    name: input.name ?? input.handle,
    timezone: requireTimeZone(input.timezone ?? 'UTC'),
    queuePaused: false,
    createdAt: deps.now(),
  });
  return { id };
}

/**
 * The operator acting in an account from the CLI, as its owner with every scope. Without --account, the
 * instance's only account; with several, the operator must say which (operator-choices.ts).
 */
export async function operatorPrincipal(deps: DomainDeps, given: string | undefined): Promise<Principal> {
  const accountId = await chooseAccount(deps, given);
  const userId = await deps.repos.accounts.firstUserId(accountId);
  if (!userId) throw new ValidationError(`Account ${accountId} has no user.`);
  return {
    accountId,
    userId,
    tokenId: 'cli',
    tokenKind: 'api_key',
    scopes: ['read_profile', 'manage_post', 'manage_team'],
  };
}

/**
 * A channel an operator adds by hand: only on a network that takes no secret to sign in (the sandbox). One of a
 * network behind a consent screen or a password would be active with no credentials and fail every post and
 * sync: it is connected instead.
 */
export async function addOperatorChannel(deps: DomainDeps, input: Parameters<typeof addChannel>[1]) {
  const network = capabilitiesOf(input.network);
  const connection = deps.networks.get(network.name)?.connection;
  if (connection && (connection.kind === 'oauth' || connection.fields.some((field) => field.secret))) {
    throw new ValidationError(
      `A ${network.displayName} channel needs its account's credentials: ` +
        `connect it with herald channel connect ${network.name} ` +
        `(herald channel connect --help says what it asks for), or from the app's Channels page.`,
    );
  }
  return addChannel(deps, input);
}

export interface DemoAccount {
  accountId: string;
  userId: string;
  workspaceId: string;
  channelIds: string[];
  apiKey: string;
  email: string;
  password: string;
}

/** The demo account `make run` creates on an empty database. */
export async function seedDemo(deps: DomainDeps): Promise<DemoAccount> {
  const email = 'demo@herald.local';
  const password = crypto.randomBytes(12).toString('base64url');
  const { accountId, userId, workspaceId } = await createAccount(deps, {
    name: 'Demo',
    ownerEmail: email,
    ownerName: 'Demo User',
    password,
  });
  const channelIds = [
    (
      await addChannel(deps, {
        accountId,
        workspaceId,
        network: 'sandbox',
        handle: '@herald_demo',
        name: 'Demo sandbox',
        timezone: 'Europe/Berlin',
      })
    ).id,
    (
      await addChannel(deps, {
        accountId,
        workspaceId,
        network: 'sandbox',
        handle: '@herald_news',
        name: 'News sandbox',
        timezone: 'America/New_York',
      })
    ).id,
  ];
  const { key } = await createApiKey(deps, {
    accountId,
    userId,
    name: 'demo',
    scopes: ['read_profile', 'manage_post', 'manage_team'],
  });
  return { accountId, userId, workspaceId, channelIds, apiKey: key, email, password };
}

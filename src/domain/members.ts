/**
 * The people of an account and their roles (REST /members, the app's Settings, Members).
 *
 * Rules kept here:
 * - everyone in the account may see who is in it; adding people and changing roles needs manage_team;
 * - only an owner makes or unmakes an owner, so an admin cannot raise themselves above the people who made them;
 * - a workspace keeps at least one owner (409 last_owner);
 * - a new person gets a temporary password, shown once and stored only as its hash; an email already in another
 *   Herald account is refused rather than moved;
 * - a role change takes effect on the person's next request: every credential's power is read against the roles
 *   at each request (role-powers.ts);
 * - removing a person (manage_team; an owner only by an owner; never the workspace's last owner; never yourself,
 *   which would end the very session or key asking) ends their memberships, API keys, OAuth authorizations and
 *   sessions at once, and their password: they cannot sign in until added again, with a new temporary password.
 *   Their posts stay. A removed person is no longer listed;
 * - re-adding a removed person by email gives them a new temporary password, as a new person gets.
 */
import crypto from 'node:crypto';
import type { components } from '../../generated/rest/openapi-types.js';
import type { MemberRole } from '../db/repositories/accounts.js';

export type { MemberRole };
import type { DomainDeps } from './deps.js';
import { ConflictError, HeraldError, NotFoundError } from './errors.js';
import { requireScope, type Principal } from './principal.js';
import { forgetResolvedTokens } from './authentication.js';
import { hashPassword } from './passwords.js';
import { addMember as addMembership, createUser } from './provisioning.js';

export type MemberView = components['schemas']['Member'];
export type MemberAdded = components['schemas']['MemberAdded'];
export type MemberRemoved = components['schemas']['MemberRemoved'];

export async function listMembers(deps: DomainDeps, principal: Principal): Promise<MemberView[]> {
  const members = (await deps.repos.accounts.listMembers(principal.accountId)).filter((m) => m.memberships.length > 0);
  return members.map(({ user, memberships }) => ({ userId: user.id, email: user.email, name: user.name, memberships }));
}

export async function addMember(
  deps: DomainDeps,
  principal: Principal,
  input: { email: string; name?: string; role: MemberRole; workspaceId?: string },
): Promise<MemberAdded> {
  requireScope(principal, 'manage_team');
  const workspaceId = await workspaceOf(deps, principal, input.workspaceId);
  await mayGrant(deps, principal, input.role, undefined);
  const existing = await deps.repos.accounts.findUserByEmail(input.email.trim());
  if (existing && existing.accountId !== principal.accountId) {
    throw new ConflictError(
      'email_taken',
      `${existing.email} already belongs to another Herald account; use another email.`,
    );
  }
  let temporaryPassword: string | null = null;
  let userId = existing?.id;
  if (!userId) {
    temporaryPassword = newTemporaryPassword();
    userId = (
      await createUser(deps, {
        accountId: principal.accountId,
        email: input.email,
        name: input.name?.trim() || input.email.trim(),
        password: temporaryPassword,
      })
    ).id;
  } else if (existing!.passwordHash === null) {
    temporaryPassword = newTemporaryPassword();
    await deps.repos.accounts.setPasswordHash(
      principal.accountId,
      userId,
      await hashPassword(temporaryPassword, deps.config.passwordHashCost),
    );
  }
  await addMembership(deps, { accountId: principal.accountId, workspaceId, userId, role: input.role });
  return { ...(await memberView(deps, principal.accountId, userId)), temporaryPassword };
}

export async function setMemberRole(
  deps: DomainDeps,
  principal: Principal,
  userId: string,
  input: { role: MemberRole; workspaceId?: string },
): Promise<MemberView> {
  requireScope(principal, 'manage_team');
  const workspaceId = await workspaceOf(deps, principal, input.workspaceId);
  const members = await deps.repos.accounts.listMembers(principal.accountId);
  const member = members.find((m) => m.user.id === userId);
  if (!member) throw new NotFoundError(`No member ${userId} in this account; GET /members lists them.`);
  const current = member.memberships.find((m) => m.workspaceId === workspaceId)?.role;
  await mayGrant(deps, principal, input.role, current);
  if (current === 'owner' && input.role !== 'owner') {
    const owners = members.filter((m) =>
      m.memberships.some((ms) => ms.workspaceId === workspaceId && ms.role === 'owner'),
    );
    if (owners.length <= 1)
      throw new ConflictError('last_owner', "This is the workspace's only owner: make someone else owner first.");
  }
  await deps.repos.accounts.addMember(workspaceId, userId, input.role);
  // A demotion holds on this instance from the next request, not after the principal cache's second.
  forgetResolvedTokens(deps);
  return memberView(deps, principal.accountId, userId);
}

export async function removeMember(deps: DomainDeps, principal: Principal, userId: string): Promise<MemberRemoved> {
  requireScope(principal, 'manage_team');
  const members = await deps.repos.accounts.listMembers(principal.accountId);
  const member = members.find((m) => m.user.id === userId && m.memberships.length > 0);
  if (!member) throw new NotFoundError(`No member ${userId} in this account; GET /members lists them.`);
  if (userId === principal.userId) {
    throw new ConflictError('remove_self', 'You cannot remove yourself: ask another owner or admin to remove you.');
  }
  const owns = member.memberships.filter((m) => m.role === 'owner');
  if (owns.length > 0) await mayGrant(deps, principal, 'owner', 'owner');
  for (const { workspaceId } of owns) {
    const owners = members.filter((m) =>
      m.memberships.some((ms) => ms.workspaceId === workspaceId && ms.role === 'owner'),
    );
    if (owners.length <= 1) {
      throw new ConflictError('last_owner', "This is a workspace's only owner: make someone else owner first.");
    }
  }
  const now = deps.now();
  const ended = await deps.repos.inTransaction(async (repos) => {
    await repos.accounts.removeMemberships(principal.accountId, userId);
    await repos.accounts.setPasswordHash(principal.accountId, userId, null);
    return {
      revokedApiKeys: await repos.apiKeys.revokeAllOf(principal.accountId, userId, now),
      revokedAuthorizations: await repos.oauth.revokeAllForUser(principal.accountId, userId, now),
      endedSessions: await repos.sessions.deleteAllOf(principal.accountId, userId),
    };
  });
  forgetResolvedTokens(deps);
  return { userId, ...ended };
}

function newTemporaryPassword(): string {
  return crypto.randomBytes(12).toString('base64url');
}

/** Making or unmaking an owner takes an owner. */
async function mayGrant(
  deps: DomainDeps,
  principal: Principal,
  role: MemberRole,
  current: MemberRole | undefined,
): Promise<void> {
  if (role !== 'owner' && current !== 'owner') return;
  const roles = await deps.repos.accounts.rolesOf(principal.accountId, principal.userId);
  if (!roles.includes('owner')) throw new HeraldError('forbidden', 403, 'Only an owner can make or unmake an owner.');
}

async function workspaceOf(deps: DomainDeps, principal: Principal, workspaceId: string | undefined): Promise<string> {
  if (workspaceId) {
    if (!(await deps.repos.accounts.getWorkspace(principal.accountId, workspaceId)))
      throw new NotFoundError(`No workspace ${workspaceId} in this account; GET /workspaces lists them.`);
    return workspaceId;
  }
  const [first] = await deps.repos.accounts.listWorkspaces(principal.accountId);
  if (!first) throw new NotFoundError('This account has no workspace yet.');
  return first.id;
}

async function memberView(deps: DomainDeps, accountId: string, userId: string): Promise<MemberView> {
  const found = (await deps.repos.accounts.listMembers(accountId)).find((m) => m.user.id === userId)!;
  return { userId, email: found.user.email, name: found.user.name, memberships: found.memberships };
}

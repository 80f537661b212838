/**
 * What an operator's command (the herald CLI) acts on when it is not told:
 * - the account: the instance's only one; with none, or several, a refusal that names each by its name and id;
 * - the user: the account's only user; with several, a refusal that names each by email and name;
 * - the workspace: the account's only workspace; with several, a refusal that names each by its name.
 * An id the operator gives is checked to exist in the account, so a mistyped one is said as such.
 */
import type { DomainDeps } from './deps.js';
import { NotFoundError, ValidationError } from './errors.js';

// A refusal lists this many at most: past that, `herald account list` shows them all.
const LISTED = 20;

function choices(things: string[], more: boolean): string {
  return things.map((line) => `\n  ${line}`).join('') + (more ? '\n  … (herald account list shows them all)' : '');
}

export async function chooseAccount(deps: DomainDeps, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    if (!(await deps.repos.accounts.getAccount(given))) throw new NotFoundError(`No account ${given}.`);
    return given;
  }
  const accounts = await deps.repos.accounts.listAccounts(LISTED + 1);
  if (accounts.length === 1) return accounts[0].id;
  if (accounts.length === 0)
    throw new ValidationError('This instance has no account yet: create one with herald account create.');
  const listed = accounts.slice(0, LISTED).map((a) => `${a.id}  ${a.name}`);
  throw new ValidationError(
    `This instance has several accounts: name one with --account.${choices(listed, accounts.length > LISTED)}`,
  );
}

export async function chooseUser(deps: DomainDeps, accountId: string, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    if (!(await deps.repos.accounts.getUser(accountId, given)))
      throw new NotFoundError(`No user ${given} in account ${accountId}.`);
    return given;
  }
  const users = (await deps.repos.accounts.listMembers(accountId)).map((m) => m.user);
  if (users.length === 1) return users[0].id;
  if (users.length === 0)
    throw new ValidationError(`Account ${accountId} has no user: add one with herald user create.`);
  const listed = users.slice(0, LISTED).map((u) => `${u.id}  ${u.email} (${u.name})`);
  throw new ValidationError(
    `Account ${accountId} has several users: name one with --user.${choices(listed, users.length > LISTED)}`,
  );
}

export async function chooseWorkspace(deps: DomainDeps, accountId: string, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    if (!(await deps.repos.accounts.getWorkspace(accountId, given)))
      throw new NotFoundError(`No workspace ${given} in account ${accountId}.`);
    return given;
  }
  const workspaces = await deps.repos.accounts.listWorkspaces(accountId);
  if (workspaces.length === 1) return workspaces[0].id;
  if (workspaces.length === 0)
    throw new ValidationError(`Account ${accountId} has no workspace: add one with herald workspace create.`);
  const listed = workspaces.slice(0, LISTED).map((w) => `${w.id}  ${w.name}`);
  throw new ValidationError(
    `Account ${accountId} has several workspaces: name one with --workspace.` +
      choices(listed, workspaces.length > LISTED),
  );
}

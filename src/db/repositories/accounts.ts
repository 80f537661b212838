import { isPostgres, type Db } from '../connection.js';
import { runSql } from '../sqlite-statements.js';
import { bool } from './rows.js';

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: number;
}
export interface UserRecord {
  id: string;
  accountId: string;
  email: string;
  name: string;
  passwordHash: string | null;
  createdAt: number;
}
export interface WorkspaceRecord {
  id: string;
  accountId: string;
  name: string;
  approvalRequired: boolean;
  createdAt: number;
}
export type MemberRole = 'owner' | 'admin' | 'editor' | 'reviewer';

/** Accounts, their users, workspaces and memberships. */
/** True when a user insert lost a race for its email to another request (the unique index on users.email). */
export function isEmailTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') return e.constraint === 'users_email_unique'; // Postgres unique_violation
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' && /users\.email/.test(e.message ?? '');
}

export class AccountsRepository {
  constructor(private readonly db: Db) {}

  async createAccount(record: AccountRecord): Promise<void> {
    await this.db('accounts').insert({ id: record.id, name: record.name, created_at: record.createdAt });
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const row = await this.db('accounts').where({ id }).first();
    return row && { id: row.id, name: row.name, createdAt: row.created_at };
  }

  /**
   * Inside a transaction: waits until no other transaction creating the first account (the demo) is running, and
   * holds that until this one ends. Postgres: a transaction-level advisory lock; SQLite: a unit of work already
   * holds the database's write lock, which no other process shares.
   */
  async lockFirstAccountCreation(): Promise<void> {
    if (isPostgres(this.db)) await this.db.raw("SELECT pg_advisory_xact_lock(hashtext('herald:first-account'))");
  }

  async countAccounts(): Promise<number> {
    const row = await this.db('accounts').count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  /** The instance's accounts, oldest first, at most `limit` (the CLI picks the only one when there is one). */
  async listAccounts(limit: number): Promise<AccountRecord[]> {
    const rows = await this.db('accounts')
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .select('id', 'name', 'created_at');
    return rows.map((row) => ({ id: row.id, name: row.name, createdAt: Number(row.created_at) }));
  }

  /** The account's first user (its owner, made with the account). */
  async firstUserId(accountId: string): Promise<string | undefined> {
    return (await this.db('users').where({ account_id: accountId }).orderBy('created_at').orderBy('id').first('id'))
      ?.id;
  }

  /** The roles a user holds across the account's workspaces. */
  async rolesOf(accountId: string, userId: string): Promise<MemberRole[]> {
    const rows = await this.db('memberships')
      .join('workspaces', 'workspaces.id', 'memberships.workspace_id')
      .where({ 'workspaces.account_id': accountId, 'memberships.user_id': userId })
      .select('memberships.role');
    return rows.map((r) => r.role as MemberRole);
  }

  async createUser(record: UserRecord): Promise<void> {
    await this.db('users').insert({
      id: record.id,
      account_id: record.accountId,
      email: record.email,
      name: record.name,
      password_hash: record.passwordHash,
      created_at: record.createdAt,
    });
  }

  async getUser(accountId: string, id: string): Promise<UserRecord | undefined> {
    const row = await this.db('users').where({ account_id: accountId, id }).first();
    return row && toUser(row);
  }

  async findUserByEmail(email: string): Promise<UserRecord | undefined> {
    const row = await this.db('users').where({ email: email.toLowerCase() }).first();
    return row && toUser(row);
  }

  async createWorkspace(record: WorkspaceRecord): Promise<void> {
    await this.db('workspaces').insert({
      id: record.id,
      account_id: record.accountId,
      name: record.name,
      approval_required: record.approvalRequired,
      created_at: record.createdAt,
    });
  }

  async listWorkspaces(accountId: string): Promise<WorkspaceRecord[]> {
    const rows = await runSql(this.db, 'SELECT * FROM workspaces WHERE account_id = ? ORDER BY id', [accountId]);
    return rows.map(toWorkspace);
  }

  async getWorkspace(accountId: string, id: string): Promise<WorkspaceRecord | undefined> {
    const row = await this.db('workspaces').where({ account_id: accountId, id }).first();
    return row && toWorkspace(row);
  }

  async setApprovalRequired(accountId: string, id: string, required: boolean): Promise<boolean> {
    const n = await this.db('workspaces').where({ account_id: accountId, id }).update({ approval_required: required });
    return n > 0;
  }

  /** Every user of the account with their memberships (none for a user in no workspace), by creation. */
  async listMembers(
    accountId: string,
  ): Promise<{ user: UserRecord; memberships: { workspaceId: string; role: MemberRole }[] }[]> {
    const users = (await this.db('users').where({ account_id: accountId }).orderBy('created_at').orderBy('id')).map(
      toUser,
    );
    const rows: { user_id: string; workspace_id: string; role: MemberRole }[] = await this.db('memberships')
      .join('workspaces', 'workspaces.id', 'memberships.workspace_id')
      .where({ 'workspaces.account_id': accountId })
      .select('memberships.user_id', 'memberships.workspace_id', 'memberships.role')
      .orderBy('memberships.workspace_id');
    return users.map((user) => ({
      user,
      memberships: rows
        .filter((r) => r.user_id === user.id)
        .map((r) => ({ workspaceId: r.workspace_id, role: r.role })),
    }));
  }

  /** Ends the user's memberships in every workspace of the account; how many there were. */
  async removeMemberships(accountId: string, userId: string): Promise<number> {
    const workspaces = this.db('workspaces').where({ account_id: accountId }).select('id');
    return this.db('memberships').where({ user_id: userId }).whereIn('workspace_id', workspaces).delete();
  }

  /** null: the user cannot sign in until given a password again. */
  async setPasswordHash(accountId: string, userId: string, passwordHash: string | null): Promise<void> {
    await this.db('users').where({ account_id: accountId, id: userId }).update({ password_hash: passwordHash });
  }

  async addMember(workspaceId: string, userId: string, role: MemberRole): Promise<void> {
    await this.db('memberships')
      .insert({ workspace_id: workspaceId, user_id: userId, role })
      .onConflict(['workspace_id', 'user_id'])
      .merge({ role });
  }
}

function toUser(row: any): UserRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    email: row.email,
    name: row.name,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
  };
}

function toWorkspace(row: any): WorkspaceRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    approvalRequired: bool(row.approval_required),
    createdAt: row.created_at,
  };
}

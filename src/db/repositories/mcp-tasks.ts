import type { Db } from '../connection.js';

export type McpTaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** Who may see a task: the account and the credential that started it. */
export interface McpTaskOwner {
  accountId: string;
  tokenKind: string;
  tokenId: string;
}

export interface McpTaskRecord extends McpTaskOwner {
  id: string;
  tool: string;
  status: McpTaskStatus;
  statusMessage: string | null;
  /** JSON: the tool's result once completed, the JSON-RPC error once failed. */
  result: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  ttlMs: number;
  expiresAt: number;
}

/** The width of status_message (012_mcp_tasks): a longer message (one naming a long URL) is cut, not refused. */
const STATUS_MESSAGE_MAX = 1000;

function clip(message: string | null): string | null {
  return message === null || message.length <= STATUS_MESSAGE_MAX
    ? message
    : `${message.slice(0, STATUS_MESSAGE_MAX - 1)}…`;
}

/** MCP tasks, always read through their owner and never past their expiry. */
export class McpTasksRepository {
  constructor(private readonly db: Db) {}

  /** Answers the task as stored. */
  async create(record: McpTaskRecord): Promise<McpTaskRecord> {
    const stored = { ...record, statusMessage: clip(record.statusMessage) };
    await this.db('mcp_tasks').insert({
      id: record.id,
      account_id: record.accountId,
      token_kind: record.tokenKind,
      token_id: record.tokenId,
      tool: record.tool,
      status: record.status,
      status_message: stored.statusMessage,
      result: record.result,
      error: record.error,
      created_at: record.createdAt,
      updated_at: record.updatedAt,
      ttl_ms: record.ttlMs,
      expires_at: record.expiresAt,
    });
    return stored;
  }

  async get(owner: McpTaskOwner, id: string, now: number): Promise<McpTaskRecord | undefined> {
    const row = await this.owned(owner, now).andWhere({ id }).first();
    return row && toRecord(row);
  }

  /** The owner's live tasks, newest first, after the (createdAt, id) position of the previous page. */
  async list(
    owner: McpTaskOwner,
    now: number,
    limit: number,
    after?: { createdAt: number; id: string },
  ): Promise<McpTaskRecord[]> {
    const query = this.owned(owner, now);
    if (after) {
      query.andWhere((q) =>
        q
          .where('created_at', '<', after.createdAt)
          .orWhere((same) => same.where('created_at', after.createdAt).andWhere('id', '<', after.id)),
      );
    }
    const rows = await query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit);
    return rows.map(toRecord);
  }

  /** Moves a working task on; false when it is no longer working (cancelled, expired or gone), and nothing changes. */
  async updateWorking(
    id: string,
    changes: { status: McpTaskStatus; statusMessage: string | null; result?: string; error?: string },
    now: number,
  ): Promise<boolean> {
    const updated = await this.db('mcp_tasks')
      .where({ id, status: 'working' })
      .andWhere('expires_at', '>', now)
      .update({
        status: changes.status,
        status_message: clip(changes.statusMessage),
        result: changes.result ?? null,
        error: changes.error ?? null,
        updated_at: now,
      });
    return updated > 0;
  }

  /** Rewrites the message of a cancelled task (how far the work got before it stopped). */
  async noteCancelled(id: string, statusMessage: string, now: number): Promise<void> {
    await this.db('mcp_tasks')
      .where({ id, status: 'cancelled' })
      .update({ status_message: clip(statusMessage), updated_at: now });
  }

  async deleteExpired(now: number): Promise<number> {
    return this.db('mcp_tasks').where('expires_at', '<=', now).delete();
  }

  private owned(owner: McpTaskOwner, now: number) {
    return this.db('mcp_tasks')
      .where({ account_id: owner.accountId, token_kind: owner.tokenKind, token_id: owner.tokenId })
      .andWhere('expires_at', '>', now);
  }
}

function toRecord(row: Record<string, any>): McpTaskRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    tokenKind: row.token_kind,
    tokenId: row.token_id,
    tool: row.tool,
    status: row.status,
    statusMessage: row.status_message,
    result: row.result,
    error: row.error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ttlMs: Number(row.ttl_ms),
    expiresAt: Number(row.expires_at),
  };
}

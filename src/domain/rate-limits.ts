/**
 * Rate budgets (SPEC, Limits): per account, REST reads and writes have separate minute budgets (AI
 * requests count as writes); MCP has a minute budget per key or token; REST and MCP share the
 * account's hourly budget. Counters live in the database so every instance sees them.
 */
import type { RateLimitConfig } from '../config.js';
import type { DomainDeps } from './deps.js';
import { RateLimitedError } from './errors.js';
import type { Principal } from './principal.js';

export type RateLimitedSurface = 'rest_read' | 'rest_write' | 'mcp';

export interface BudgetUsage {
  limit: number;
  remaining: number;
  /** Seconds until the budget resets. */
  resetSeconds: number;
}

export interface RateLimitUsage {
  minute: BudgetUsage;
  account: BudgetUsage;
}

interface Budget {
  label: string;
  bucket: string;
  limit: number;
  windowMs: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

function minuteBudget(limits: RateLimitConfig, surface: RateLimitedSurface, principal: Principal): Budget {
  switch (surface) {
    case 'rest_read':
      return { label: 'REST read budget', bucket: `rest_read:${principal.accountId}`, limit: limits.restReadsPerMinute, windowMs: MINUTE };
    case 'rest_write':
      return { label: 'REST write budget', bucket: `rest_write:${principal.accountId}`, limit: limits.restWritesPerMinute, windowMs: MINUTE };
    case 'mcp':
      return { label: 'MCP budget of this token', bucket: `mcp:${principal.tokenId}`, limit: limits.mcpPerTokenPerMinute, windowMs: MINUTE };
  }
}

/** Counts one request against its budgets; throws RateLimitedError (carrying the usage) when one is spent. */
export async function consumeRateLimit(deps: DomainDeps, principal: Principal, surface: RateLimitedSurface): Promise<RateLimitUsage> {
  const limits = deps.config.rateLimits;
  const minute = minuteBudget(limits, surface, principal);
  const account: Budget = { label: 'account hourly budget', bucket: `account:${principal.accountId}`, limit: limits.accountPerHour, windowMs: HOUR };
  const now = deps.now();
  const minuteUsage = await hit(deps, minute, now);
  const accountUsage = minuteUsage.remaining < 0 ? await peek(deps, account, now) : await hit(deps, account, now);
  const usage: RateLimitUsage = { minute: clamp(minuteUsage), account: clamp(accountUsage) };
  const spent = [minuteUsage.remaining < 0 && { budget: minute, usage: minuteUsage }, accountUsage.remaining < 0 && { budget: account, usage: accountUsage }]
    .filter(Boolean) as { budget: Budget; usage: BudgetUsage }[];
  if (spent.length > 0) {
    const worst = spent.reduce((a, b) => (a.usage.resetSeconds >= b.usage.resetSeconds ? a : b));
    throw new RateLimitExceeded(worst.usage.resetSeconds, worst.budget.label, usage);
  }
  return usage;
}

export class RateLimitExceeded extends RateLimitedError {
  constructor(retryAfterSeconds: number, budget: string, readonly usage: RateLimitUsage) {
    super(retryAfterSeconds, budget);
  }
}

async function hit(deps: DomainDeps, budget: Budget, now: number): Promise<BudgetUsage> {
  const windowStart = Math.floor(now / budget.windowMs) * budget.windowMs;
  const hits = await deps.repos.rateLimits.hit(budget.bucket, windowStart, windowStart + budget.windowMs);
  return { limit: budget.limit, remaining: budget.limit - hits, resetSeconds: resetSeconds(windowStart, budget.windowMs, now) };
}

/** Reads a budget without counting the request (it was already refused by another budget). */
async function peek(deps: DomainDeps, budget: Budget, now: number): Promise<BudgetUsage> {
  const windowStart = Math.floor(now / budget.windowMs) * budget.windowMs;
  const hits = await deps.repos.rateLimits.hits(budget.bucket, windowStart);
  return { limit: budget.limit, remaining: budget.limit - hits, resetSeconds: resetSeconds(windowStart, budget.windowMs, now) };
}

function resetSeconds(windowStart: number, windowMs: number, now: number): number {
  return Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
}

function clamp(usage: BudgetUsage): BudgetUsage {
  return { ...usage, remaining: Math.max(0, usage.remaining) };
}

/**
 * Rate budgets (SPEC, Limits): per account, REST reads and writes have separate minute budgets (AI
 * requests count as writes); MCP has a minute budget per key or token; REST and MCP share the
 * account's hourly budget. They live in the database so every instance shares them.
 *
 * Each budget is a GCRA bucket (the generic cell rate algorithm, a token bucket kept as one timestamp):
 * a budget of L per window W lets up to L requests through at once, then one more every W/L. Unlike the
 * fixed windows it replaced, a client cannot spend two budgets back to back across a window boundary
 * (120 requests in 1.25 s on a 60-a-minute budget): in any span of t seconds at most L + t*L/W pass.
 * One atomic statement per budget; a request refused by its minute budget is not charged to the
 * account's hour, and a refused request spends nothing.
 */
import crypto from 'node:crypto';
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
  const minuteStep = await take(deps, minute, now);
  const accountStep = minuteStep.allowed ? await take(deps, account, now) : await peek(deps, account, now);
  const usage: RateLimitUsage = { minute: minuteStep.usage, account: accountStep.usage };
  if (!minuteStep.allowed) throw new RateLimitExceeded(minuteStep.retryAfterSeconds, minute.label, usage);
  if (!accountStep.allowed) throw new RateLimitExceeded(accountStep.retryAfterSeconds, account.label, usage);
  return usage;
}

/**
 * AI requests count as writes (SPEC, Limits): a tool that runs one spends the write minute budget as well,
 * on top of what its request already spent; the account's hour is charged once, by the request.
 */
export async function consumeWriteBudgetForAi(deps: DomainDeps, principal: Principal): Promise<void> {
  const limits = deps.config.rateLimits;
  const write = minuteBudget(limits, 'rest_write', principal);
  const account: Budget = { label: 'account hourly budget', bucket: `account:${principal.accountId}`, limit: limits.accountPerHour, windowMs: HOUR };
  const now = deps.now();
  const step = await take(deps, write, now);
  if (!step.allowed) throw new RateLimitExceeded(step.retryAfterSeconds, write.label, { minute: step.usage, account: (await peek(deps, account, now)).usage });
}

export class RateLimitExceeded extends RateLimitedError {
  constructor(retryAfterSeconds: number, budget: string, readonly usage: RateLimitUsage) {
    super(retryAfterSeconds, budget);
  }
}

interface Step {
  allowed: boolean;
  usage: BudgetUsage;
  /** When refused: seconds until a request would pass. */
  retryAfterSeconds: number;
}

/** Microseconds: the bucket's arithmetic stays in whole numbers for any limit. */
const US = 1000;

async function take(deps: DomainDeps, budget: Budget, now: number): Promise<Step> {
  const { tat, allowed } = await deps.repos.rateLimits.take(budget.bucket, now * US, intervalOf(budget), budget.windowMs * US, crypto.randomBytes(12).toString('base64url'));
  return step(budget, tat, now * US, allowed);
}

/** Reads a budget without charging it (the request was already refused by another budget). */
async function peek(deps: DomainDeps, budget: Budget, now: number): Promise<Step> {
  const stored = (await deps.repos.rateLimits.bucketTat(budget.bucket)) ?? 0;
  const tat = stored > now * US && stored <= (now + budget.windowMs) * US ? stored : now * US;
  return step(budget, tat, now * US, tat + intervalOf(budget) - now * US <= budget.windowMs * US);
}

function intervalOf(budget: Budget): number {
  return Math.max(1, Math.round((budget.windowMs * US) / budget.limit));
}

function step(budget: Budget, tat: number, nowUs: number, allowed: boolean): Step {
  const interval = intervalOf(budget);
  const window = budget.windowMs * US;
  const ahead = Math.max(0, tat - nowUs);
  return {
    allowed,
    usage: {
      limit: budget.limit,
      remaining: Math.max(0, Math.min(budget.limit, Math.floor((window - ahead) / interval))),
      resetSeconds: Math.max(1, Math.ceil(ahead / (1000 * US))),
    },
    retryAfterSeconds: Math.max(1, Math.ceil((ahead + interval - window) / (1000 * US))),
  };
}

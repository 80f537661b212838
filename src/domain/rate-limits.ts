/**
 * Rate budgets (SPEC, Limits). Rules enforced here:
 * - Per account, REST reads and writes have separate minute budgets (AI requests count as writes); MCP has
 *   a minute budget per key or token; REST and MCP share the account's hourly budget. Reads count too.
 * - A budget of L a minute (an hour) admits at most L requests in ANY 60 s (3600 s), not only in
 *   clock-aligned windows, and all L may be spent at once: SPEC has no separate burst budget.
 * - Budgets live in the database, so every instance on it shares them exactly.
 * - A request is admitted only when every budget it spends has room, and then spends each; one that any budget
 *   refuses spends nothing (a request the hour refuses spends nothing of its minute, and the other way round).
 * - RateLimit-Remaining is L less the admissions of the last window; RateLimit-Reset the seconds until the
 *   budget is full again; Retry-After the seconds until the refused request would pass every budget.
 * - A person clicking in the web app is not an API integration: the app's requests spend none of the account's
 *   REST or MCP budgets but a budget of their own per user (RATE_LIMIT_APP_REQUESTS_PER_MINUTE); the AI helpers
 *   still count as the account's writes, as SPEC says of AI requests.
 * - A changed limit starts its budgets afresh (the bucket's name carries the limit), and admissions recorded
 *   more than a window ahead, which only a clock that went back leaves, no longer count.
 *
 * Why a sliding log and not a token bucket or GCRA: exact over any window and still allowing the whole
 * budget at once needs the times of the last L admissions. A bucket of capacity L refilling L a window
 * passes L at once and L - 1 more before that window ends (2L - 1 in 60 s), and a "previous window
 * weighted" estimate is not exact either. So a budget keeps its admissions still in the window, a row per
 * millisecond, and their count: a charge drops the admissions that have left the window, passes when fewer
 * than L remain, and adds itself. Each admission is written once and dropped once, so a request costs the
 * same few statements whatever the limit (src/db/repositories/rate-limits.ts; on Postgres one call).
 */
import type { RateLimitConfig } from '../config.js';
import type { BudgetState, LogBudget } from '../db/repositories/rate-limits.js';
import type { DomainDeps } from './deps.js';
import { RateLimitedError } from './errors.js';
import type { Principal } from './principal.js';

export type RateLimitedSurface = 'rest_read' | 'rest_write' | 'mcp';

export interface BudgetUsage {
  limit: number;
  remaining: number;
  /** Seconds until the budget is full again. */
  resetSeconds: number;
}

export interface RateLimitUsage {
  minute: BudgetUsage;
  account: BudgetUsage;
}

interface Budget extends LogBudget {
  label: string;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

function budget(label: string, owner: string, limit: number, windowMs: number): Budget {
  return { label, bucket: `${owner}/${limit}`, limit, windowMs };
}

function minuteBudget(limits: RateLimitConfig, surface: RateLimitedSurface, principal: Principal): Budget {
  switch (surface) {
    case 'rest_read':
      return budget('REST read budget', `rest_read:${principal.accountId}`, limits.restReadsPerMinute, MINUTE);
    case 'rest_write':
      return budget('REST write budget', `rest_write:${principal.accountId}`, limits.restWritesPerMinute, MINUTE);
    case 'mcp':
      return budget('MCP budget of this token', `mcp:${principal.tokenId}`, limits.mcpPerTokenPerMinute, MINUTE);
  }
}

function accountBudget(limits: RateLimitConfig, principal: Principal): Budget {
  return budget('account hourly budget', `account:${principal.accountId}`, limits.accountPerHour, HOUR);
}

/** Counts one request against its budgets; throws RateLimitExceeded (carrying the usage) when one is spent. */
export async function consumeRateLimit(
  deps: DomainDeps,
  principal: Principal,
  surface: RateLimitedSurface,
): Promise<RateLimitUsage> {
  const minute = minuteBudget(deps.config.rateLimits, surface, principal);
  const account = accountBudget(deps.config.rateLimits, principal);
  const now = deps.now();
  const result = await deps.repos.rateLimits.charge(now, [minute, account]);
  const [minuteState, accountState] = result.charged;
  const usage: RateLimitUsage = {
    minute: usageOf(minute, minuteState, now),
    account: usageOf(account, accountState, now),
  };
  if (result.admitted) return usage;
  throw refusal(now, usage, [minute, minuteState], [account, accountState]);
}

/**
 * AI requests count as writes (SPEC, Limits): a tool that runs one spends the write minute budget as well,
 * on top of what its request already spent; the account's hour is charged once, by the request.
 */
export async function consumeWriteBudgetForAi(deps: DomainDeps, principal: Principal): Promise<void> {
  const write = minuteBudget(deps.config.rateLimits, 'rest_write', principal);
  const account = accountBudget(deps.config.rateLimits, principal);
  const now = deps.now();
  const result = await deps.repos.rateLimits.charge(now, [write], [account]);
  if (result.admitted) return;
  const [writeState] = result.charged;
  throw refusal(now, { minute: usageOf(write, writeState, now), account: usageOf(account, result.reported[0], now) }, [
    write,
    writeState,
  ]);
}

/**
 * An AI request made with the web app's session (REST from the app's page): the request spent the person's app
 * budget only, so the AI helper charges the account's write budget here, as SPEC says of AI requests. A key or a
 * token already paid the write budget, as a REST write.
 */
export async function consumeWriteBudgetForAppAi(deps: DomainDeps, principal: Principal): Promise<void> {
  if (principal.tokenKind === 'session') await consumeWriteBudgetForAi(deps, principal);
}

/** Counts one web-app request of a signed-in person against their own minute budget. */
export async function consumeAppBudget(deps: DomainDeps, user: { accountId: string; userId: string }): Promise<void> {
  const app = budget(
    'web app budget of this person',
    `app:${user.accountId}:${user.userId}`,
    deps.config.appRequestsPerMinute,
    MINUTE,
  );
  const now = deps.now();
  const result = await deps.repos.rateLimits.charge(now, [app]);
  if (result.admitted) return;
  const [state] = result.charged;
  throw refusal(now, { minute: usageOf(app, state, now), account: usageOf(app, state, now) }, [app, state]);
}

export class RateLimitExceeded extends RateLimitedError {
  constructor(
    retryAfterSeconds: number,
    budget: string,
    readonly usage: RateLimitUsage,
  ) {
    super(retryAfterSeconds, budget);
  }
}

function usageOf(budget: Budget, state: BudgetState, now: number): BudgetUsage {
  return {
    limit: budget.limit,
    remaining: Math.max(0, budget.limit - state.count),
    resetSeconds: state.latest === undefined ? 0 : Math.ceil((state.latest + budget.windowMs - now) / 1000),
  };
}

/** Milliseconds until the budget admits a request: when its oldest admission leaves the window. */
function waitOf(budget: Budget, state: BudgetState, now: number): number {
  return state.count < budget.limit || state.oldest === undefined ? 0 : state.oldest + budget.windowMs - now;
}

/** Names the budget that holds the request longest; Retry-After is when every budget would admit it. */
function refusal(now: number, usage: RateLimitUsage, ...budgets: [Budget, BudgetState][]): RateLimitExceeded {
  const waits = budgets.map(([b, state]) => ({ label: b.label, ms: waitOf(b, state, now) }));
  const longest = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
  return new RateLimitExceeded(Math.max(1, Math.ceil(longest.ms / 1000)), longest.label, usage);
}

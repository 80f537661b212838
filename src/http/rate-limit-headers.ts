import type { Response } from 'express';
import type { RateLimitUsage } from '../domain/rate-limits.js';

/** The headers of SPEC's Limits table; resets are in seconds, not timestamps. */
export function setRateLimitHeaders(res: Response, usage: RateLimitUsage): void {
  res.setHeader('RateLimit-Limit', String(usage.minute.limit));
  res.setHeader('RateLimit-Remaining', String(usage.minute.remaining));
  res.setHeader('RateLimit-Reset', String(usage.minute.resetSeconds));
  res.setHeader('X-Account-RateLimit-Limit', String(usage.account.limit));
  res.setHeader('X-Account-RateLimit-Remaining', String(usage.account.remaining));
  res.setHeader('X-Account-RateLimit-Reset', String(usage.account.resetSeconds));
}

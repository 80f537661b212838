import { ValidationError } from './errors.js';

/** Wire times are ISO 8601; stored times are epoch milliseconds; output is always UTC with Z. */
export function parseWireTime(value: string, path: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ValidationError(`${path} is not a valid ISO 8601 time`, [{ path, message: 'Use e.g. 2030-01-01T09:00:00Z' }]);
  return ms;
}

export function toWireTime(ms: number): string;
export function toWireTime(ms: number | null): string | null;
export function toWireTime(ms: number | null): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

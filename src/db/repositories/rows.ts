/** SQLite hands back 0/1 and JSON as text; these turn rows into plain typed values on both databases. */
export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

export function json<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value !== 'string') return value as T;
  return JSON.parse(value) as T;
}

export function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

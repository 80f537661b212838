import crypto from 'node:crypto';

/** Bearer secrets (API keys, OAuth tokens) are random and high-entropy, so a plain SHA-256 is a sound hash at rest. */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

export function newSecret(prefix: string, bytes = 32): string {
  return prefix + crypto.randomBytes(bytes).toString('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

// scrypt is memory-hard (r=8 at the configured N=2^15 needs 32 MiB per hash) and ships with Node.
const PARAMS = { r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** A hash records its own cost, so hashes made at another cost (tests use a low one) still verify. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...PARAMS, N: cost });
  return `scrypt$${cost}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const key = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), KEY_LENGTH, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  const want = Buffer.from(expected, 'base64url');
  return want.length === key.length && crypto.timingSafeEqual(want, key);
}

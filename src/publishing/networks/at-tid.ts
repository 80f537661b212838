import crypto from 'node:crypto';

/**
 * AT Protocol record keys as TIDs (timestamp identifiers): 64 bits, the top one zero, then 53 bits of
 * microseconds since the epoch and 10 bits of clock id, written in base32-sortable. Herald derives a post's
 * TID from the post (its creation time and a hash of its id), so every attempt at one post names the same
 * record and a second create at that key is refused by the PDS.
 */
const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';

export function tidFrom(key: string, atMs: number): string {
  const digest = crypto.createHash('sha256').update(key).digest();
  const micros = BigInt(Math.max(0, Math.floor(atMs))) * 1000n + BigInt(digest.readUInt16BE(0) % 1000);
  const clockId = BigInt(digest.readUInt16BE(2) & 0x3ff);
  const value = ((micros & ((1n << 53n) - 1n)) << 10n) | clockId;
  let out = '';
  for (let i = 12; i >= 0; i--) out += ALPHABET[Number((value >> BigInt(5 * i)) & 31n)];
  return out;
}

/** The time a TID names, in ms (for keys derived after it, such as a first comment's). */
export function tidTimeMs(tid: string): number | undefined {
  if (!/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(tid)) return undefined;
  let value = 0n;
  for (const char of tid) value = (value << 5n) | BigInt(ALPHABET.indexOf(char));
  return Number((value >> 10n) / 1000n);
}

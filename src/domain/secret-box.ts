/**
 * Secrets at rest (instance secrets today, channel credentials next) are sealed under the instance's
 * master key.
 *
 * Rules enforced:
 * - AES-256-GCM with a fresh random 12-byte nonce per sealing; the tag authenticates the ciphertext;
 * - a sealed value names its key by a short id (`v1.<kid>.<nonce>.<ciphertext+tag>`, base64url), so a
 *   rotated key can still open what it sealed while everything is re-sealed under the new one;
 * - a value sealed under a key this instance does not hold is a SecretKeyMismatchError that says what to
 *   configure, never a silent fallback; a malformed key is a MasterKeyError naming the expected format;
 * - the secret's name is bound as associated data: a sealed value copied to another name does not open.
 */
import crypto from 'node:crypto';

const VERSION = 'v1';

/** The master key is missing, malformed or not the one that sealed what is stored: an operator must act. */
export class MasterKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MasterKeyError';
  }
}

class SecretKeyMismatchError extends MasterKeyError {
  constructor(kid: string) {
    super(
      `A stored secret was sealed under master key ${kid}, which this instance does not hold. ` +
        'Give every instance the same HERALD_SECRET_KEY (or DATA_DIR/secret.key); while rotating, ' +
        'set HERALD_PREVIOUS_SECRET_KEY to the old key.',
    );
    this.name = 'SecretKeyMismatchError';
  }
}

export function keyId(key: Buffer): string {
  return crypto.createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

export class SecretBox {
  private readonly current: { kid: string; key: Buffer };
  private readonly keys: Map<string, Buffer>;

  constructor(currentKey: Buffer, previousKeys: readonly Buffer[] = []) {
    if (currentKey.length !== 32) throw new MasterKeyError('The master key must be 32 bytes.');
    this.current = { kid: keyId(currentKey), key: currentKey };
    this.keys = new Map([...previousKeys, currentKey].map((key) => [keyId(key), key]));
  }

  get currentKeyId(): string {
    return this.current.kid;
  }

  seal(name: string, plaintext: string): string {
    const nonce = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.current.key, nonce);
    cipher.setAAD(Buffer.from(name));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.current.kid, nonce.toString('base64url'), body.toString('base64url')].join('.');
  }

  open(name: string, sealed: string): string {
    const [version, kid, nonce, body] = sealed.split('.');
    if (version !== VERSION || !kid || !nonce || !body)
      throw new Error(`The stored secret ${name} is not a sealed value.`);
    const key = this.keys.get(kid);
    if (!key) throw new SecretKeyMismatchError(kid);
    const bytes = Buffer.from(body, 'base64url');
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(name));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  }

  isSealed(value: string): boolean {
    return value.startsWith(`${VERSION}.`) && value.split('.').length === 4;
  }

  /** Sealed under an older key (or not sealed at all): should be sealed again under the current one. */
  isStale(value: string): boolean {
    return !this.isSealed(value) || value.split('.')[1] !== this.current.kid;
  }
}

/** A master key as configured: 32 bytes written as hex (64 digits), base64 or base64url (43 or 44 characters). */
export function parseMasterKey(text: string, source: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : undefined;
  if (key?.length !== 32) {
    throw new MasterKeyError(
      `${source} must be 32 random bytes written as base64 or hex (e.g. the output of: openssl rand -base64 32).`,
    );
  }
  return key;
}

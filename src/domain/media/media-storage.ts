import type { Readable } from 'node:stream';

/**
 * The port for where media bytes live, owned by the domain; src/storage implements it (local disk, S3).
 * Keys are opaque relative paths chosen by the domain ("<workspace>/<id>/<name>").
 * Contract: `put` stores the whole object or throws, leaving nothing half-written visible under the key;
 * `open` streams the object or returns undefined when there is none; `delete` is idempotent. An
 * unreachable store is a ServiceUnavailableError.
 */
export interface MediaStorage {
  readonly kind: 'local' | 's3';
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  open(key: string): Promise<Readable | undefined>;
  read(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
}

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

/** A file of Herald's own media library, as connectors and media checks receive it. */
export interface LibraryFile {
  bytes: Buffer;
  contentType: string;
}

/**
 * Herald's own library files named by their URL, read from storage for one account (media/library-files.ts):
 * what a connector uploads and the publish-time check are never fetched back over HTTP.
 */
export interface LibraryFiles {
  /**
   * undefined when the URL is not this instance's library; `missing` (the reason, in words) when it is, but names
   * no file of this account.
   */
  read(accountId: string, url: string): Promise<LibraryFile | { missing: string } | undefined>;
  /** The same answer without the bytes: whether the URL names a file of this account's library. */
  find(accountId: string, url: string): Promise<{ contentType: string } | { missing: string } | undefined>;
}

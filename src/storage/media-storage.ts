import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ServiceUnavailableError } from '../domain/errors.js';
import type { MediaStorage } from '../domain/media/media-storage.js';

/** The domain's MediaStorage port, on local disk (below) or in an S3 bucket (s3-media-storage.ts). */

export function safeRelative(key: string): string {
  const normal = path.posix.normalize(key);
  if (normal.startsWith('..') || path.posix.isAbsolute(normal) || normal.includes('\0')) {
    throw new Error(`storage key escapes the media root: ${key}`);
  }
  return normal;
}

/** Files under DATA_DIR/media; writes go to a temporary name and are renamed into place. */
class LocalMediaStorage implements MediaStorage {
  readonly kind = 'local' as const;
  constructor(private readonly root: string) {}

  private file(key: string): string {
    return path.join(this.root, safeRelative(key));
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const target = this.file(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temporary = `${target}.${process.pid}.${Date.now()}.part`;
    await fs.promises.writeFile(temporary, bytes, { mode: 0o600 });
    await fs.promises.rename(temporary, target);
  }

  async open(key: string): Promise<Readable | undefined> {
    const target = this.file(key);
    try {
      await fs.promises.access(target, fs.constants.R_OK);
    } catch {
      return undefined;
    }
    return fs.createReadStream(target);
  }

  async read(key: string): Promise<Buffer | undefined> {
    try {
      return await fs.promises.readFile(this.file(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.file(key), { force: true });
  }
}

export interface MediaStorageConfig {
  dataDir: string;
  s3?: S3StorageOptions;
}

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  /** Prepended to every key inside the bucket. */
  prefix: string;
}

export async function createMediaStorage(config: MediaStorageConfig): Promise<MediaStorage> {
  if (!config.s3) return new LocalMediaStorage(path.join(config.dataDir, 'media'));
  // The AWS SDK is large: load it only where a bucket is configured (it slows every CLI start otherwise).
  const { S3MediaStorage } = await import('./s3-media-storage.js');
  return unavailableOnFailure(new S3MediaStorage(config.s3));
}

/**
 * A bucket that cannot be reached or refuses Herald is the operator's to fix: callers get a 503 that says so
 * without the bucket's name or keys, and the log gets the cause. (Applied here rather than inside the S3 module,
 * which is loaded on demand and must not depend on the identity of the domain's error classes.)
 */
function unavailableOnFailure(storage: MediaStorage): MediaStorage {
  const guard = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      // S3 service errors carry $metadata (the HTTP answer); anything else never reached the bucket.
      const answered = error instanceof Error && '$metadata' in error;
      const reason = answered ? `the bucket answered ${error.name}` : 'the bucket could not be reached';
      throw new ServiceUnavailableError(
        `Herald's media storage is unavailable (${reason}). Try again later; if it persists, ` +
          'the operator should check the S3_* settings.',
        { cause: error },
      );
    }
  };
  return {
    kind: storage.kind,
    put: (key, bytes, contentType) => guard(() => storage.put(key, bytes, contentType)),
    open: (key) => guard(() => storage.open(key)),
    read: (key) => guard(() => storage.read(key)),
    delete: (key) => guard(() => storage.delete(key)),
  };
}

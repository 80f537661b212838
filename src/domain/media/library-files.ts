import type { MediaRecord } from '../../db/repositories/media.js';
import type { DomainDeps } from '../deps.js';
import type { LibraryFile, LibraryFiles } from './media-storage.js';

/**
 * Files of Herald's own media library, named by the URLs posts carry, read from storage instead of over HTTP.
 *
 * Rules enforced:
 * - a URL is the library's when it is this instance's {BASE_URL}/media/{id}/{filename} (query and fragment aside):
 *   whatever address the instance has, a loopback one included, its own files never go through the SSRF guard;
 * - a library URL is read only for the account that owns the file: another account's file, or a file name that
 *   is not the record's, is missing, as an unknown id is;
 * - what Herald judged of a file when it came in (its type, size and dimensions, from its bytes) stands for it.
 */
export interface LibraryRef {
  id: string;
  filename: string;
}

/** The library file a URL names on this instance, or undefined for any other URL. */
export function libraryRefOf(baseUrl: string, url: string): LibraryRef | undefined {
  let parsed: URL;
  let base: URL;
  try {
    parsed = new URL(url);
    base = new URL(`${baseUrl}/media/`);
  } catch {
    return undefined;
  }
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathname)) return undefined;
  const segments = parsed.pathname.slice(base.pathname.length).split('/');
  if (segments.length !== 2 || !segments[0] || !segments[1]) return undefined;
  try {
    return { id: decodeURIComponent(segments[0]), filename: decodeURIComponent(segments[1]) };
  } catch {
    return undefined;
  }
}

type LibraryDeps = Pick<DomainDeps, 'config' | 'repos' | 'mediaStorage'>;

/** The account's record behind a library URL: undefined for other URLs, `missing` when it names none of its files. */
async function recordOf(
  deps: LibraryDeps,
  accountId: string,
  url: string,
): Promise<MediaRecord | { missing: string } | undefined> {
  const ref = libraryRefOf(deps.config.baseUrl, url);
  if (!ref) return undefined;
  const [record] = await deps.repos.media.findMany(accountId, [ref.id]);
  if (!record || record.filename !== ref.filename) {
    return {
      missing: `Media ${url} is not in this account's media library; upload the file again or name it by its media id.`,
    };
  }
  return record;
}

export function libraryFiles(deps: LibraryDeps): LibraryFiles {
  return {
    async find(accountId, url) {
      const record = await recordOf(deps, accountId, url);
      return record && ('missing' in record ? record : { contentType: record.mimeType });
    },
    async read(accountId, url): Promise<LibraryFile | { missing: string } | undefined> {
      const record = await recordOf(deps, accountId, url);
      if (!record || 'missing' in record) return record;
      const bytes = await deps.mediaStorage.read(record.storageKey);
      if (!bytes) return { missing: `The file of media ${url} is gone from Herald's storage; upload it again.` };
      return { bytes, contentType: record.mimeType };
    },
  };
}

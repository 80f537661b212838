import path from 'node:path';
import type { DomainDeps } from '../deps.js';
import { UnprocessableError } from '../errors.js';
import type { Principal } from '../principal.js';
import { resolveWorkspace, storeMedia, type MediaView } from './media-library.js';

/**
 * Importing a file from a URL into the media library.
 *
 * Rules enforced:
 * - the URL is fetched through the OutboundFetcher port (deps.fetcher): no loopback, private, link-local or metadata
 *   addresses, checked after DNS resolution and on every redirect (OUTBOUND_ALLOW_HOSTS excepted);
 * - direct files only: an HTML page (a video site's watch page, a storage preview page) is refused, saying why;
 * - at most MEDIA_MAX_IMPORT_BYTES, within MEDIA_IMPORT_TIMEOUT_MS;
 * - what is stored is judged by its bytes, like an upload.
 */
export async function importMediaFromUrl(
  deps: DomainDeps,
  principal: Principal,
  input: { url: string; fileName?: string; workspaceId?: string },
): Promise<MediaView> {
  const workspaceId = await resolveWorkspace(deps, principal, input.workspaceId);
  const fetchOptions = {
    allowHosts: deps.config.outboundAllowHosts,
    maxBytes: deps.config.media.maxImportBytes,
    timeoutMs: deps.config.media.importTimeoutMs,
  };
  const probe = await deps.fetcher.probeDirectMedia(input.url, fetchOptions);
  if (!probe.direct) throw new UnprocessableError('not_a_direct_file', probe.reason);
  const response = await deps.fetcher.fetch(probe.url, fetchOptions);
  if (response.status < 200 || response.status >= 300) {
    throw new UnprocessableError('url_fetch_failed', `${probe.url} answered HTTP ${response.status}.`);
  }
  const fileName = input.fileName ?? (fileNameOf(probe.url) || 'media');
  return storeMedia(deps, principal, {
    workspaceId,
    bytes: response.body,
    fileName,
    source: 'import',
    sourceUrl: input.url,
  });
}

/** The URL's last path segment, decoded where its percent-encoding is valid and left as sent where not. */
function fileNameOf(url: string): string {
  const name = path.posix.basename(new URL(url).pathname);
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

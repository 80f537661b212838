import type { LibraryFiles } from '../domain/media/media-storage.js';
import { OutboundRequestError } from '../domain/outbound.js';
import { probeDirectMedia } from '../net/safe-fetch.js';
import { NetworkError } from '../domain/networks/connector.js';

/**
 * Before publishing, every image and video URL must be a direct file: a web page (a video site's watch
 * page, a storage preview page) or anything not an image or video fails the post with a message saying so.
 * A file of Herald's own library is looked up in the post's account, never fetched back over HTTP: Herald judged
 * its bytes when it came in, and its own address may be one the SSRF guard refuses (localhost). A direct file's
 * media type (the library's record, or read from its first bytes) is given where known, for the network's formats.
 */
export type MediaCheck = { direct: true; mimeType?: string } | { direct: false; reason: string };
export type MediaChecker = (url: string, accountId: string) => Promise<MediaCheck>;

const PROBE_TIMEOUT_MS = 10_000;
const PROBE_MAX_BYTES = 1024 * 1024;

/**
 * The real check: the library, else through safe-fetch's SSRF rules; a host that cannot be reached now is retried
 * later.
 */
export function safeMediaChecker(allowHosts: readonly string[], library: LibraryFiles): MediaChecker {
  return async (url, accountId) => {
    const own = await library.find(accountId, url);
    if (own)
      return 'missing' in own ? { direct: false, reason: own.missing } : { direct: true, mimeType: own.contentType };
    try {
      const probe = await probeDirectMedia(url, { allowHosts, maxBytes: PROBE_MAX_BYTES, timeoutMs: PROBE_TIMEOUT_MS });
      return probe.direct ? { direct: true, mimeType: probe.mimeType } : { direct: false, reason: probe.reason };
    } catch (error) {
      if (error instanceof OutboundRequestError) {
        if (error.reason === 'timeout' || error.reason === 'unreachable') {
          throw new NetworkError('retry_later', `Could not fetch media ${url} to check it: ${error.message}`);
        }
        return { direct: false, reason: `Media ${url} cannot be used: ${error.message}` };
      }
      throw error;
    }
  };
}

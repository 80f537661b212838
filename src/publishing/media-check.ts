import { OutboundRequestError } from '../domain/outbound.js';
import { probeDirectMedia } from '../net/safe-fetch.js';
import { NetworkError } from '../domain/networks/connector.js';

/**
 * Before publishing, every image and video URL must be a direct file: a web page (a video site's watch
 * page, a storage preview page) or anything not an image or video fails the post with a message saying so.
 * A direct file's media type, read from its first bytes, is given where known, for the network's format rules.
 */
export type MediaCheck = { direct: true; mimeType?: string } | { direct: false; reason: string };
export type MediaChecker = (url: string) => Promise<MediaCheck>;

const PROBE_TIMEOUT_MS = 10_000;
const PROBE_MAX_BYTES = 1024 * 1024;

/** The real check, through safe-fetch's SSRF rules; a host that cannot be reached now is retried later. */
export function safeMediaChecker(allowHosts: readonly string[]): MediaChecker {
  return async (url) => {
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

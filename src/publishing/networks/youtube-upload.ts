import { NetworkError } from '../../domain/networks/connector.js';
import type { NetworkAnswer, NetworkHttp } from './network-http.js';

/**
 * Google's resumable upload protocol (developers.google.com/youtube/v3/guides/using_resumable_upload_protocol).
 *
 * Rules kept here:
 * - the bytes go in chunks of the configured size, a multiple of 256 KiB (config.ts checks it), each with its
 *   Content-Range; 308 answers with the Range received so far, and the next chunk starts right after it;
 * - a connection that breaks, or a 5xx, is followed by asking the session (PUT with `Content-Range: bytes *\/total`
 *   and no body) how much arrived, and the upload goes on from there: bytes that arrived are never sent again;
 * - 200 or 201 carries the video; 404 or 410 means the session is gone (SessionGone), with no video from it;
 * - the session URI must be Google's own upload address: it is a Location a network sent, not a URL to follow anywhere.
 */

/** How often in a row Herald asks a session again after a broken connection or a 5xx before giving up for now. */
const MAX_RESUMES = 5;

export const UPLOAD_ORIGIN = 'https://www.googleapis.com';

export class SessionGone extends Error {
  constructor() {
    super('the YouTube upload session expired before the video arrived');
  }
}

export interface UploadFile {
  bytes: Buffer;
  contentType: string;
}

/** What an upload session reports: the video when every byte arrived, else where the next chunk starts. */
export type SessionState = { video: any } | { next: number };

export class ResumableUpload {
  constructor(
    private readonly http: NetworkHttp,
    private readonly session: string,
    private readonly total: number,
    private readonly chunkBytes: number,
    private readonly authorization: () => Promise<Record<string, string>>,
    private readonly failure: (answer: NetworkAnswer) => Promise<NetworkError>,
  ) {
    const url = new URL(session);
    if (url.origin !== UPLOAD_ORIGIN || !url.pathname.startsWith('/upload/youtube/v3/videos')) {
      throw new NetworkError(
        'permanent',
        "YouTube answered with an upload session that is not at Google's upload address",
      );
    }
  }

  /** Sends the file's bytes from `from` on and answers the video resource. */
  async send(file: UploadFile, from: number): Promise<any> {
    const total = this.total;
    let next = from;
    let resumes = 0;
    for (;;) {
      const end = Math.min(next + this.chunkBytes, total);
      let answer: NetworkAnswer | undefined;
      try {
        answer = await this.http.request(this.session, {
          method: 'PUT',
          headers: {
            ...(await this.authorization()),
            'content-type': file.contentType,
            'content-range': `bytes ${next}-${end - 1}/${total}`,
          },
          body: file.bytes.subarray(next, end),
        });
      } catch (error) {
        if (!(error instanceof NetworkError) || error.kind === 'permanent') throw error;
      }
      if (answer && (answer.status === 200 || answer.status === 201)) return answer.json;
      if (answer && answer.status === 308) {
        next = receivedUpTo(answer);
        resumes = 0;
        continue;
      }
      if (answer && (answer.status === 404 || answer.status === 410)) throw new SessionGone();
      if (answer && answer.status < 500) throw await this.failure(answer);
      if (++resumes > MAX_RESUMES) {
        throw new NetworkError(
          'unknown_outcome',
          `the YouTube upload broke off ${MAX_RESUMES} times in a row; the session is kept to resume from`,
        );
      }
      const state = await this.ask();
      if ('video' in state) return state.video;
      next = state.next;
    }
  }

  /** Asks the session how much arrived. */
  async ask(): Promise<SessionState> {
    const answer = await this.http.request(this.session, {
      method: 'PUT',
      headers: { ...(await this.authorization()), 'content-range': `bytes */${this.total}` },
      body: Buffer.alloc(0),
    });
    if (answer.status === 200 || answer.status === 201) return { video: answer.json };
    if (answer.status === 308) return { next: receivedUpTo(answer) };
    if (answer.status === 404 || answer.status === 410) throw new SessionGone();
    throw await this.failure(answer);
  }
}

/** The byte after the last one a 308's Range says arrived (no Range: nothing arrived). */
function receivedUpTo(answer: NetworkAnswer): number {
  const range = /^bytes=0-(\d+)$/.exec(answer.header('range') ?? '');
  return range ? Number(range[1]) + 1 : 0;
}

import crypto from 'node:crypto';
import type { NetworkCapabilities } from '../../domain/networks/capabilities.js';
import { NetworkError } from '../../domain/networks/connector.js';
import type { XApi, XCredentials } from './x-api.js';
import { downloadMedia, type NetworkHttpOptions } from './network-http.js';

/**
 * Media uploaded to X before a post names it (docs.x.com x-api/media/quickstart/media-upload-chunked,
 * create-media-metadata):
 * - every file goes the chunked way: initialize with its type, size and category (tweet_image, tweet_gif,
 *   tweet_video), append each segment (capabilities.chunkedUpload) as multipart `segment_index` + `media`, finalize;
 * - a GIF or video is processed: its status is polled, waiting the `check_after_secs` X names, until `succeeded`;
 *   `failed` is permanent with X's reason; still processing after the wait is retried later;
 * - alt text goes through the media metadata endpoint, for images and GIFs (X takes none for videos).
 */
const MAX_POLLS = 60;

export type XMediaCategory = 'tweet_image' | 'tweet_gif' | 'tweet_video';

export class XMedia {
  constructor(
    private readonly api: XApi,
    private readonly media: NetworkHttpOptions,
    private readonly capabilities: NetworkCapabilities,
  ) {}

  async upload(c: XCredentials, accountId: string, url: string, altText: string | undefined): Promise<string> {
    const kinds = this.capabilities.media.kinds;
    const largest = Math.max(...Object.values(kinds).map((k) => k.maxBytes ?? 0));
    const file = await downloadMedia(this.media, accountId, url, largest);
    const category: XMediaCategory =
      file.contentType === 'image/gif'
        ? 'tweet_gif'
        : file.contentType.startsWith('video/')
          ? 'tweet_video'
          : 'tweet_image';
    const rule = kinds[category === 'tweet_gif' ? 'gif' : category === 'tweet_video' ? 'video' : 'image'];
    if (rule?.maxBytes !== undefined && file.bytes.length > rule.maxBytes) {
      throw new NetworkError(
        'permanent',
        `X takes ${category.slice(6)} files up to ${rule.maxBytes} bytes; ${url} has ${file.bytes.length}`,
      );
    }
    const init = await this.api.expect(
      c,
      '/2/media/upload/initialize',
      {
        method: 'POST',
        json: { media_type: file.contentType, total_bytes: file.bytes.length, media_category: category },
      },
      [200, 201, 202],
    );
    const id = String(init.json?.data?.id ?? '');
    if (!id) throw new NetworkError('retry_later', 'X answered a media upload without its id');
    const segment = this.capabilities.chunkedUpload!.maxChunkBytes;
    for (let index = 0, from = 0; from < file.bytes.length; index++, from += segment) {
      const { body, contentType } = multipart(
        { segment_index: String(index) },
        file.bytes.subarray(from, from + segment),
        file.contentType,
      );
      await this.api.expect(
        c,
        `/2/media/upload/${id}/append`,
        { method: 'POST', headers: { 'content-type': contentType }, body },
        [200, 204],
      );
    }
    const finalized = await this.api.expect(c, `/2/media/upload/${id}/finalize`, { method: 'POST' }, [200, 201]);
    await this.processed(c, id, finalized.json?.data?.processing_info);
    if (altText && category !== 'tweet_video') {
      await this.api.expect(
        c,
        '/2/media/metadata',
        { method: 'POST', json: { id, metadata: { alt_text: { text: altText } } } },
        [200],
      );
    }
    return id;
  }

  private async processed(
    c: XCredentials,
    id: string,
    first: { state?: string; check_after_secs?: number } | undefined,
  ): Promise<void> {
    let info = first;
    for (let poll = 0; info && info.state !== 'succeeded'; poll++) {
      if (info.state === 'failed') {
        const error = (info as { error?: { name?: string; message?: string } }).error;
        throw new NetworkError(
          'permanent',
          `X could not process the media (${[error?.name, error?.message].filter(Boolean).join(': ') || 'failed'})`,
        );
      }
      if (poll >= MAX_POLLS)
        throw new NetworkError('retry_later', `X was still processing media ${id} after ${MAX_POLLS} checks`);
      await this.api.http.pause(Math.max(0, Number(info.check_after_secs ?? 1)) * 1000);
      const status = await this.api.expect(
        c,
        `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}`,
        {},
        [200],
      );
      info = status.json?.data?.processing_info;
    }
  }
}

function multipart(fields: Record<string, string>, bytes: Buffer, type: string): { body: Buffer; contentType: string } {
  const boundary = `herald-${crypto.randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="media"; ` +
        `filename="media"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

import { NetworkError } from '../../domain/networks/connector.js';
import type { LinkedInApi, LinkedInCredentials } from './linkedin-api.js';
import { downloadMedia, type NetworkHttpOptions } from './network-http.js';

/**
 * Images and videos uploaded to LinkedIn before a post or comment names them (community-management/shares
 * images-api, videos-api):
 * - an image: initializeUpload for the owner, one PUT of the bytes to the uploadUrl, then wait until AVAILABLE;
 * - a video: initializeUpload with its size, a PUT of each byte range LinkedIn's uploadInstructions name,
 *   keeping each part's ETag, finalizeUpload with the ETags in order, then wait until AVAILABLE;
 * - PROCESSING_FAILED is permanent with LinkedIn's reason; still processing after the wait is retried later;
 * - the owner is the channel's author: LinkedIn refuses media owned by anyone else in a post.
 */
const POLL_MS = 500;
const POLLS = 120;

export class LinkedInMedia {
  constructor(
    private readonly api: LinkedInApi,
    private readonly media: NetworkHttpOptions,
  ) {}

  async uploadImage(c: LinkedInCredentials, accountId: string, url: string): Promise<string> {
    const file = await downloadMedia(this.media, accountId, url, this.media.maxBytes);
    const init = await this.api.expect(
      c,
      '/rest/images?action=initializeUpload',
      { method: 'POST', json: { initializeUploadRequest: { owner: c.author } } },
      [200],
    );
    const { uploadUrl, image } = init.json?.value ?? {};
    if (typeof uploadUrl !== 'string' || typeof image !== 'string')
      throw new NetworkError('retry_later', 'LinkedIn answered an image upload without an upload URL');
    await this.api.expect(
      c,
      uploadUrl,
      { method: 'PUT', headers: { 'content-type': file.contentType }, body: file.bytes },
      [200, 201],
    );
    await this.available(c, 'images', image);
    return image;
  }

  async uploadVideo(c: LinkedInCredentials, accountId: string, url: string, maxBytes: number): Promise<string> {
    const file = await downloadMedia(this.media, accountId, url, maxBytes);
    const init = await this.api.expect(
      c,
      '/rest/videos?action=initializeUpload',
      {
        method: 'POST',
        json: {
          initializeUploadRequest: {
            owner: c.author,
            fileSizeBytes: file.bytes.length,
            uploadCaptions: false,
            uploadThumbnail: false,
          },
        },
      },
      [200],
    );
    const { video, uploadInstructions, uploadToken } = init.json?.value ?? {};
    if (typeof video !== 'string' || !Array.isArray(uploadInstructions))
      throw new NetworkError('retry_later', 'LinkedIn answered a video upload without instructions');
    const etags: string[] = [];
    for (const part of uploadInstructions as { uploadUrl: string; firstByte: number; lastByte: number }[]) {
      const answer = await this.api.expect(
        c,
        part.uploadUrl,
        {
          method: 'PUT',
          headers: { 'content-type': 'application/octet-stream' },
          body: file.bytes.subarray(part.firstByte, part.lastByte + 1),
        },
        [200, 201],
      );
      const etag = answer.header('etag');
      if (!etag) throw new NetworkError('retry_later', 'LinkedIn took a video part without an ETag');
      etags.push(etag);
    }
    await this.api.expect(
      c,
      '/rest/videos?action=finalizeUpload',
      {
        method: 'POST',
        json: { finalizeUploadRequest: { video, uploadToken: uploadToken ?? '', uploadedPartIds: etags } },
      },
      [200],
    );
    await this.available(c, 'videos', video);
    return video;
  }

  private async available(c: LinkedInCredentials, resource: 'images' | 'videos', urn: string): Promise<void> {
    for (let poll = 0; poll < POLLS; poll++) {
      const answer = await this.api.expect(c, `/rest/${resource}/${encodeURIComponent(urn)}`, {}, [200]);
      const status = answer.json?.status;
      if (status === 'AVAILABLE') return;
      if (status === 'PROCESSING_FAILED') {
        throw new NetworkError(
          'permanent',
          `LinkedIn could not process the ${resource === 'images' ? 'image' : 'video'} ` +
            `(${answer.json?.processingFailureReason ?? 'PROCESSING_FAILED'})`,
        );
      }
      await this.api.http.pause(POLL_MS);
    }
    throw new NetworkError('retry_later', `LinkedIn was still processing ${urn} after ${(POLL_MS * POLLS) / 1000} s`);
  }
}

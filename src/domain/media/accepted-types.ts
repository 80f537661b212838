import type { DirectMediaKind } from '../outbound.js';

/**
 * The media formats Herald takes, in one place for every path that judges a file: uploads and imports
 * (media-file.ts, from the whole file) and the check before publishing a URL (the outbound fetcher,
 * from its first bytes). These are the formats the networks accept: JPEG, PNG, GIF and WebP images;
 * MP4, QuickTime and WebM videos.
 */
export const ACCEPTED_TYPES: Readonly<Record<string, { kind: DirectMediaKind; extension: string }>> = {
  'image/jpeg': { kind: 'image', extension: 'jpg' },
  'image/png': { kind: 'image', extension: 'png' },
  'image/gif': { kind: 'image', extension: 'gif' },
  'image/webp': { kind: 'image', extension: 'webp' },
  'video/mp4': { kind: 'video', extension: 'mp4' },
  'video/quicktime': { kind: 'video', extension: 'mov' },
  'video/webm': { kind: 'video', extension: 'webm' },
};

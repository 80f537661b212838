import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import type { MediaKind } from '../../db/repositories/media.js';
import { UnprocessableError } from '../errors.js';
import { ACCEPTED_TYPES } from './accepted-types.js';

/**
 * What a media file really is, judged from its bytes, never from its name or declared type.
 *
 * Rules enforced:
 * - only the formats of accepted-types.ts;
 * - images must have readable dimensions;
 * - MP4 and QuickTime durations are read from the movie header where present (cheap: no decoding).
 */
export { ACCEPTED_TYPES };

export interface InspectedMedia {
  mimeType: string;
  kind: MediaKind;
  extension: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

export function acceptedTypeList(): string {
  return Object.keys(ACCEPTED_TYPES).join(', ');
}

export async function inspectMedia(bytes: Buffer): Promise<InspectedMedia> {
  const detected = await fileTypeFromBuffer(bytes);
  // file-type reports some MP4 brands as video/x-m4v or QuickTime-compatible MP4 as video/mp4; fold the aliases.
  const mimeType = detected?.mime === 'video/x-m4v' ? 'video/mp4' : detected?.mime;
  const accepted = mimeType ? ACCEPTED_TYPES[mimeType] : undefined;
  if (!mimeType || !accepted) {
    throw new UnprocessableError(
      'unsupported_media_type',
      `The file is ${mimeType ? `of type ${mimeType}` : 'not a recognised image or video'}; ` +
        `accepted types are ${acceptedTypeList()}.`,
    );
  }
  if (accepted.kind === 'image') {
    let size: { width?: number; height?: number };
    try {
      size = imageSize(bytes);
    } catch {
      throw new UnprocessableError(
        'unsupported_media_type',
        `The ${mimeType} file is damaged: its dimensions cannot be read.`,
      );
    }
    return { mimeType, ...accepted, width: size.width ?? null, height: size.height ?? null, durationMs: null };
  }
  return {
    mimeType,
    ...accepted,
    width: null,
    height: null,
    durationMs: mimeType === 'video/webm' ? null : movieDurationMs(bytes),
  };
}

/** Duration from the 'mvhd' box of an MP4/QuickTime file, found by walking the top-level and 'moov' boxes. */
function movieDurationMs(bytes: Buffer): number | null {
  const moov = findBox(bytes, 0, bytes.length, 'moov');
  if (!moov) return null;
  const mvhd = findBox(bytes, moov.start, moov.end, 'mvhd');
  if (!mvhd) return null;
  const version = bytes[mvhd.start];
  if (version === 1) {
    if (mvhd.start + 32 > mvhd.end) return null;
    const timescale = bytes.readUInt32BE(mvhd.start + 20);
    const duration = Number(bytes.readBigUInt64BE(mvhd.start + 24));
    return timescale ? Math.round((duration / timescale) * 1000) : null;
  }
  if (mvhd.start + 20 > mvhd.end) return null;
  const timescale = bytes.readUInt32BE(mvhd.start + 12);
  const duration = bytes.readUInt32BE(mvhd.start + 16);
  return timescale ? Math.round((duration / timescale) * 1000) : null;
}

function findBox(bytes: Buffer, from: number, to: number, type: string): { start: number; end: number } | undefined {
  let offset = from;
  while (offset + 8 <= to) {
    let size = bytes.readUInt32BE(offset);
    let header = 8;
    if (size === 1 && offset + 16 <= to) {
      size = Number(bytes.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = to - offset;
    }
    if (size < header) return undefined;
    if (bytes.toString('latin1', offset + 4, offset + 8) === type) {
      return { start: offset + header, end: Math.min(offset + size, to) };
    }
    offset += size;
  }
  return undefined;
}

/** Smallest real files of each kind, built byte by byte so the tests need no binary fixtures. */
export const TINY_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489' +
    '0000000d4944415478da63f8cfc0f01f0005000200d1a1d3c50000000049454e44ae426082',
  'hex',
);

/** A JPEG whose frame header says its size (height x width), as Herald and the networks read it; no image data. */
export function jpegOfSize(height: number, width: number): Buffer {
  const hex = (n: number) => n.toString(16).padStart(4, '0');
  return Buffer.from(
    `ffd8ffe000104a46494600010100000100010000ffc0000b08${hex(height)}${hex(width)}01011100ffd9`,
    'hex',
  );
}

/** The smallest JPEG: 1 x 1. */
export const TINY_JPEG = jpegOfSize(1, 1);

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

/** An MP4 with an ftyp box and a movie header saying 2.5 s (timescale 1000, duration 2500); no media data. */
export const TINY_MP4 = (() => {
  const ftyp = box(
    'ftyp',
    Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2mp41', 'latin1')]),
  );
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(2500, 16);
  mvhd.writeUInt32BE(0x00010000, 20);
  return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd)), box('mdat', Buffer.alloc(16))]);
})();

import crypto from 'node:crypto';
import { ValidationError } from './errors.js';

/**
 * Paging cursors: opaque, signed (a client cannot forge or edit one) and bound to the listing mode
 * they were issued in. A cursor from another mode or route is `Invalid cursor` (SPEC, GET /posts rule 2).
 */
export interface CursorPosition {
  key: number | null;
  id: string;
}

export function encodeCursor(secret: string, mode: string, position: CursorPosition): string {
  const payload = Buffer.from(JSON.stringify({ m: mode, k: position.key, i: position.id })).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

export function decodeCursor(secret: string, mode: string, cursor: string): CursorPosition {
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined || !validSignature(secret, payload, signature))
    throw invalidCursor();
  let decoded: { m?: unknown; k?: unknown; i?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (decoded.m !== mode || typeof decoded.i !== 'string' || !(decoded.k === null || typeof decoded.k === 'number')) {
    throw invalidCursor();
  }
  return { key: decoded.k, id: decoded.i };
}

function sign(secret: string, payload: string): string {
  return crypto.createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22);
}

function validSignature(secret: string, payload: string, signature: string): boolean {
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(signature);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

function invalidCursor(): ValidationError {
  return new ValidationError('Invalid cursor', [
    {
      path: 'query.cursor',
      message:
        'The cursor is unknown or was issued for another listing mode (livePosts); restart paging without a cursor.',
    },
  ]);
}

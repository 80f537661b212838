/** Reads the client credentials a token or revocation request carries (RFC 6749 section 2.3.1). */
import type { Request } from 'express';
import type { PresentedClientCredentials } from '../domain/oauth/client-authentication.js';
import { OAuthError } from '../domain/oauth/errors.js';

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

export function presentedClientCredentials(req: Request): PresentedClientCredentials {
  const header = req.headers.authorization;
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (header !== undefined) {
    const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (!match || colon < 0)
      throw new OAuthError(
        'invalid_client',
        'The Authorization header must be HTTP Basic with the client_id and client secret.',
        401,
      );
    // Both halves are form-encoded before base64 (RFC 6749 section 2.3.1).
    return {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
      via: 'basic',
    };
  }
  const text = (name: string) =>
    typeof body[name] === 'string' && body[name] !== '' ? (body[name] as string) : undefined;
  return { clientId: text('client_id'), clientSecret: text('client_secret'), via: 'post' };
}

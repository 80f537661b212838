/**
 * Client authentication at the token and revocation endpoints (RFC 6749 section 2.3, OAuth 2.1 section 2.4):
 * - a confidential client authenticates with the method it registered, client_secret_basic (HTTP Basic)
 *   or client_secret_post (form fields), and its secret;
 * - a public client (`none`) sends only its client_id and must not send a secret; PKCE protects its codes;
 *   a client known by its metadata document is such a client, as stored when the person consented;
 * - any failure is `invalid_client`, without saying which part was wrong.
 */
import type { OAuthClientRecord } from '../../db/repositories/oauth.js';
import type { DomainDeps } from '../deps.js';
import { hashSecret, safeEqual } from '../secrets.js';
import { ClientMetadataDocumentError, findClient } from './client-metadata-documents.js';
import { OAuthError } from './errors.js';

export interface PresentedClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** How the credentials arrived: the Authorization header, or the form body. */
  via: 'basic' | 'post';
}

function invalidClient(): OAuthError {
  return new OAuthError(
    'invalid_client',
    'Client authentication failed: check the client_id, the client secret and how it is sent.',
    401,
  );
}

async function storedClient(deps: DomainDeps, clientId: string): Promise<OAuthClientRecord | undefined> {
  try {
    return await findClient(deps, clientId, { fresh: false });
  } catch (error) {
    if (error instanceof ClientMetadataDocumentError) return undefined;
    throw error;
  }
}

export async function authenticateClient(
  deps: DomainDeps,
  presented: PresentedClientCredentials,
): Promise<OAuthClientRecord> {
  if (!presented.clientId) throw invalidClient();
  const client = await storedClient(deps, presented.clientId);
  if (!client) throw invalidClient();
  if (client.tokenEndpointAuthMethod === 'none') {
    if (presented.clientSecret !== undefined) throw invalidClient();
    return client;
  }
  const expectedVia = client.tokenEndpointAuthMethod === 'client_secret_basic' ? 'basic' : 'post';
  if (presented.via !== expectedVia || presented.clientSecret === undefined || client.secretHash === null)
    throw invalidClient();
  if (!safeEqual(hashSecret(presented.clientSecret), client.secretHash)) throw invalidClient();
  return client;
}

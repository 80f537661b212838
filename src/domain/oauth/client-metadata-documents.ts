/**
 * Clients that need no registration: a `client_id` that is an https URL names the client's own metadata
 * document (draft-ietf-oauth-client-id-metadata-document-00, MCP 2026-07-28 "Client ID Metadata Documents").
 * Rules enforced:
 * - the client_id URL is https, at most MAX_CLIENT_ID_LENGTH characters, with a path other than `/`, no `.` or
 *   `..` segment, no fragment and no user name or password (draft section 3);
 * - the document is fetched through the SSRF guard (src/domain/outbound.ts: no private or loopback address
 *   unless OUTBOUND_ALLOW_HOSTS lists the host), at most MAX_DOCUMENT_BYTES (the draft's recommended 5 KB),
 *   within OAUTH_CLIENT_METADATA_TIMEOUT_MS, without following redirects (the document lives at its client_id);
 * - it answers 200 with `application/json` (or `application/<type>+json`) and a JSON object whose `client_id`
 *   equals the URL character for character, a `client_name`, and redirect URIs, grant types and
 *   application_type under the registration rules (client-registration.ts); `logo_uri` and `client_uri`, when
 *   given, are https URLs;
 * - no shared secret: `token_endpoint_auth_method` is `none` (the default; PKCE protects the code), never a
 *   client_secret_* method, and `client_secret` is not in the document (draft section 4.1). Herald does not
 *   verify client assertions, so `private_key_jwt` is refused too rather than accepted unchecked;
 * - a valid document is cached in the database (every instance shares it) for its HTTP freshness lifetime
 *   (Cache-Control s-maxage or max-age, less Age, else Expires), held to [CACHE_FLOOR_MS, CACHE_CEILING_MS],
 *   CACHE_DEFAULT_MS when the answer says nothing; errors and invalid documents are never cached (section 4.4);
 * - an authorization request uses a fresh document; the token and revocation endpoints use the one the person
 *   consented to, fetched only when none is stored;
 * - any failure is a ClientMetadataDocumentError naming the URL and what to fix.
 */
import type { OAuthClientRecord } from '../../db/repositories/oauth.js';
import type { DomainDeps } from '../deps.js';
import { OutboundRequestError, type OutboundResponse } from '../outbound.js';
import { readClientMetadata } from './client-registration.js';
import { OAuthError, UntrustedRedirectError } from './errors.js';

/** The width of the client id columns (migration 011). */
export const MAX_CLIENT_ID_LENGTH = 1024;
export const MAX_DOCUMENT_BYTES = 5 * 1024;
// The floor keeps one authorization (three checked steps) to one fetch, and a document that says no-store from
// turning every page load into a request to its host; the ceiling bounds how long a withdrawn redirect URI is honoured.
export const CACHE_FLOOR_MS = 5 * 60_000;
export const CACHE_CEILING_MS = 24 * 3_600_000;
export const CACHE_DEFAULT_MS = 3_600_000;

const SHARED_SECRET_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];

/** A client_id URL Herald cannot use; shown to the person at the authorization endpoint, invalid_client elsewhere. */
export class ClientMetadataDocumentError extends UntrustedRedirectError {
  constructor(clientId: string, problem: string) {
    super(
      `Herald cannot use the client metadata document at ${clientId}: ${problem} The application's developer must ` +
        'fix this; then start again from the application.',
    );
    this.name = 'ClientMetadataDocumentError';
  }
}

/** Client ids that are URLs are metadata document clients; registered clients' ids start with hc_. */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return /^https?:/i.test(clientId);
}

/** The host a person should see next to the client's name, for a metadata document client. */
export function metadataDocumentHost(client: OAuthClientRecord): string | undefined {
  return client.documentExpiresAt === null ? undefined : new URL(client.id).host;
}

function clientIdProblem(clientId: string): string | undefined {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return `the URL is longer than ${MAX_CLIENT_ID_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'the client_id is not a valid URL.';
  }
  if (url.protocol !== 'https:') return 'a client_id URL must use https.';
  if (clientId.includes('#')) return 'a client_id URL must not contain a fragment (#...).';
  if (url.username !== '' || url.password !== '' || /^https:\/\/[^/?]*@/i.test(clientId))
    return 'a client_id URL must not contain a user name or password.';
  const path = /^https:\/\/[^/?]*(\/[^?]*)?/i.exec(clientId)?.[1] ?? '';
  if (path === '' || path === '/')
    return 'a client_id URL must have a path, such as https://example.com/oauth/client.json.';
  if (path.split('/').some((segment) => ['.', '..', '%2e', '%2e%2e', '.%2e', '%2e.'].includes(segment.toLowerCase()))) {
    return 'a client_id URL must not contain "." or ".." path segments.';
  }
  return undefined;
}

/**
 * The URL actually requested: https as given, or plain http for hosts the operator listed for tests and development.
 */
function fetchUrl(deps: DomainDeps, clientId: string): string {
  const url = new URL(clientId);
  if (
    !deps.config.clientMetadataDocuments.plainHttpHosts.includes(url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1'))
  )
    return clientId;
  url.protocol = 'http:';
  return url.href;
}

function header(response: OutboundResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** How long the answer may be reused, under RFC 9111 section 4.2.1 for a shared cache, before the floor and ceiling. */
export function freshnessLifetimeMs(response: OutboundResponse, now: number): number {
  const directives = new Map<string, string>();
  for (const part of (header(response, 'cache-control') ?? '').split(',')) {
    const [name, value = ''] = part.trim().split('=');
    if (name) directives.set(name.toLowerCase(), value.trim().replace(/^"(.*)"$/, '$1'));
  }
  const age = Number(header(response, 'age') ?? 0) * 1000 || 0;
  let lifetime: number;
  if (directives.has('no-store') || directives.has('no-cache') || directives.has('private')) {
    lifetime = 0;
  } else if (/^\d+$/.test(directives.get('s-maxage') ?? directives.get('max-age') ?? '')) {
    lifetime = Number(directives.get('s-maxage') ?? directives.get('max-age')) * 1000 - age;
  } else if (header(response, 'expires') !== undefined) {
    // An Expires that is not a date means already expired (RFC 9111 section 5.3).
    const expires = Date.parse(header(response, 'expires')!);
    const date = Date.parse(header(response, 'date') ?? '');
    lifetime = Number.isNaN(expires) ? 0 : expires - (Number.isNaN(date) ? now : date) - age;
  } else {
    lifetime = CACHE_DEFAULT_MS;
  }
  return Math.min(CACHE_CEILING_MS, Math.max(CACHE_FLOOR_MS, lifetime));
}

function optionalHttpsUrl(document: Record<string, unknown>, field: string): string | undefined {
  const value = document[field];
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    try {
      if (new URL(value).protocol === 'https:') return undefined;
    } catch {
      // Falls through to the same problem as any other non-https value.
    }
  }
  return `${field} must be an https URL.`;
}

function documentProblem(clientId: string, document: Record<string, unknown>): string | undefined {
  if (document.client_id !== clientId) {
    return (
      `its client_id is ${JSON.stringify(document.client_id ?? null)}, ` +
      `but it must equal the document's URL exactly.`
    );
  }
  if (typeof document.client_name !== 'string' || document.client_name.trim() === '')
    return 'it has no client_name; give the application a name people will recognise.';
  if ('client_secret' in document || 'client_secret_expires_at' in document)
    return 'it contains client_secret, but a metadata document cannot hold a shared secret; remove it.';
  const method = document.token_endpoint_auth_method ?? 'none';
  if (typeof method === 'string' && SHARED_SECRET_METHODS.includes(method)) {
    return `token_endpoint_auth_method is ${method}, a shared secret a metadata document cannot establish; use "none".`;
  }
  if (method !== 'none')
    return (
      'token_endpoint_auth_method must be "none" (a public client protected by PKCE); ' +
      `Herald does not accept ${JSON.stringify(method)}.`
    );
  return optionalHttpsUrl(document, 'logo_uri') ?? optionalHttpsUrl(document, 'client_uri');
}

async function fetchDocument(deps: DomainDeps, clientId: string): Promise<OutboundResponse> {
  try {
    return await deps.fetcher.fetch(fetchUrl(deps, clientId), {
      allowHosts: deps.config.outboundAllowHosts,
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: deps.config.clientMetadataDocuments.timeoutMs,
      maxRedirects: 0,
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    if (!(error instanceof OutboundRequestError)) throw error;
    if (error.reason === 'too_many_redirects')
      throw new ClientMetadataDocumentError(
        clientId,
        'it redirects elsewhere; serve the document at its client_id URL itself.',
      );
    if (error.reason === 'too_large')
      throw new ClientMetadataDocumentError(clientId, `it is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
    throw new ClientMetadataDocumentError(clientId, error.message);
  }
}

async function loadClient(
  deps: DomainDeps,
  clientId: string,
  firstSeen: number | undefined,
): Promise<OAuthClientRecord> {
  const problem = clientIdProblem(clientId);
  if (problem) throw new ClientMetadataDocumentError(clientId, problem);
  const response = await fetchDocument(deps, clientId);
  if (response.status !== 200)
    throw new ClientMetadataDocumentError(clientId, `it answered HTTP ${response.status} instead of the document.`);
  const contentType = (header(response, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!/^application\/([a-z0-9.+-]+\+)?json$/.test(contentType)) {
    throw new ClientMetadataDocumentError(
      clientId,
      `it is served as ${JSON.stringify(contentType || 'no content type')}; serve it as application/json.`,
    );
  }
  let document: unknown;
  try {
    document = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new ClientMetadataDocumentError(clientId, 'it is not valid JSON.');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ClientMetadataDocumentError(clientId, 'it is not a JSON object.');
  const fields = document as Record<string, unknown>;
  const invalid = documentProblem(clientId, fields);
  if (invalid) throw new ClientMetadataDocumentError(clientId, invalid);
  let metadata;
  try {
    metadata = readClientMetadata(fields);
  } catch (error) {
    if (error instanceof OAuthError) throw new ClientMetadataDocumentError(clientId, error.description);
    throw error;
  }

  const now = deps.now();
  const record: OAuthClientRecord = {
    id: clientId,
    secretHash: null,
    tokenEndpointAuthMethod: 'none',
    clientName: metadata.clientName ?? null,
    redirectUris: metadata.redirectUris,
    grantTypes: metadata.grantTypes,
    scope: metadata.scope ?? null,
    metadata: metadata.extra,
    createdAt: firstSeen ?? now,
    documentExpiresAt: now + freshnessLifetimeMs(response, now),
  };
  await deps.repos.oauth.saveDocumentClient(record);
  return record;
}

/**
 * The client a client_id names: a registered client, or a metadata document client from the cache or its URL.
 * `fresh` (the authorization endpoint) refetches a document past its lifetime; otherwise the stored one serves.
 */
export async function findClient(
  deps: DomainDeps,
  clientId: string,
  options: { fresh: boolean },
): Promise<OAuthClientRecord | undefined> {
  const stored = await deps.repos.oauth.getClient(clientId);
  if (!isMetadataDocumentClientId(clientId)) return stored;
  if (stored && (!options.fresh || (stored.documentExpiresAt ?? 0) > deps.now())) return stored;
  return loadClient(deps, clientId, stored?.createdAt);
}

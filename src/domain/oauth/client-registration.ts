/**
 * Dynamic client registration (RFC 7591), open to anyone as MCP clients arrive with only the MCP URL:
 * - `redirect_uris` is required, with at least one entry, each acceptable to `redirectUriProblem`;
 * - `token_endpoint_auth_method` is `none` (the default: a public client, no secret), `client_secret_basic`
 *   or `client_secret_post` (a confidential client: a secret is generated, returned once, stored as a hash);
 * - `grant_types` is a subset of authorization_code and refresh_token (default both), `response_types`
 *   is `["code"]`;
 * - `application_type` (OpenID Connect Registration, required of clients by MCP 2026-07-28) is `web` or
 *   `native`; a `web` client's redirect URIs are https on a non-loopback host, a `native` client's are http
 *   on a loopback host (Herald accepts no custom schemes). Older clients omit it: the type is then read from
 *   the redirect URIs (native when every one is loopback) and stored, never refused;
 * - `client_uri`, `logo_uri`, `tos_uri` and `policy_uri` are web addresses people are shown and may follow:
 *   https, or http on a loopback host, without a user name or password; any other scheme (javascript:,
 *   data:) is refused;
 * - invalid metadata is `invalid_redirect_uri` or `invalid_client_metadata`, naming the field to fix.
 */
import type { OAuthClientRecord, TokenEndpointAuthMethod } from '../../db/repositories/oauth.js';
import type { DomainDeps } from '../deps.js';
import { hashSecret, newSecret } from '../secrets.js';
import { OAuthError } from './errors.js';
import { isLoopbackRedirectUri, redirectUriProblem, webAddressProblem } from './redirect-uris.js';

const CLIENT_ID_PREFIX = 'hc_';
const CLIENT_SECRET_PREFIX = 'hcs_';
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'none',
];
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export const RESPONSE_TYPES = ['code'] as const;

/** Registered metadata Herald keeps and returns as given; anything else is dropped (RFC 7591 section 2). */
const OPTIONAL_STRING_FIELDS = [
  'client_uri',
  'logo_uri',
  'tos_uri',
  'policy_uri',
  'software_id',
  'software_version',
] as const;
const WEB_ADDRESS_FIELDS: readonly string[] = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'];
const MAX_CLIENT_NAME = 200;
const MAX_REDIRECT_URIS = 20;

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  redirect_uris: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  scope?: string;
  [field: string]: unknown;
}

function invalidMetadata(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description);
}

function stringList(
  body: Record<string, unknown>,
  field: string,
  allowed: readonly string[],
  fallback: string[],
): string[] {
  const value = body[field];
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) {
    throw invalidMetadata(`${field} must be a non-empty array of strings.`);
  }
  const unknown = value.filter((v) => !allowed.includes(v));
  if (unknown.length > 0)
    throw invalidMetadata(`${field} may only contain ${allowed.join(', ')}; remove ${unknown.join(', ')}.`);
  return [...new Set(value as string[])];
}

function redirectUris(body: Record<string, unknown>): string[] {
  const value = body.redirect_uris;
  if (!Array.isArray(value) || value.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be an array with at least one redirect URI.');
  }
  if (value.length > MAX_REDIRECT_URIS)
    throw new OAuthError('invalid_redirect_uri', `Register at most ${MAX_REDIRECT_URIS} redirect URIs.`);
  value.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris[${i}] ${problem}.`);
  });
  return [...new Set(value as string[])];
}

function optionalString(body: Record<string, unknown>, field: string, max = 2000): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max)
    throw invalidMetadata(`${field} must be a string of at most ${max} characters.`);
  return value;
}

export const APPLICATION_TYPES = ['web', 'native'] as const;
type ApplicationType = (typeof APPLICATION_TYPES)[number];

function applicationType(body: Record<string, unknown>, uris: string[]): ApplicationType {
  const value = body.application_type;
  const allLoopback = uris.every(isLoopbackRedirectUri);
  if (value === undefined) return allLoopback ? 'native' : 'web';
  if (!APPLICATION_TYPES.includes(value as ApplicationType)) {
    throw invalidMetadata(
      'application_type must be "web" (a browser application on a remote host) or "native" (a desktop, ' +
        'mobile or command-line application, or one served on localhost).',
    );
  }
  if (value === 'native' && !allLoopback) {
    throw new OAuthError(
      'invalid_redirect_uri',
      'A native application redirects to http on a loopback host (127.0.0.1, [::1] or localhost); ' +
        'register those redirect URIs, or application_type "web" for https ones.',
    );
  }
  if (value === 'web' && uris.some(isLoopbackRedirectUri)) {
    throw new OAuthError(
      'invalid_redirect_uri',
      'A web application redirects to https on its own host, never to a loopback address; register application_type ' +
        '"native" for a local application.',
    );
  }
  return value as ApplicationType;
}

/** The metadata a registered client and a metadata document client share, checked under the rules above. */
export interface ClientMetadata {
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  clientName: string | undefined;
  scope: string | undefined;
  /** application_type and the optional strings, kept and returned as given. */
  extra: Record<string, unknown>;
}

export function readClientMetadata(metadata: Record<string, unknown>): ClientMetadata {
  const uris = redirectUris(metadata);
  const grantTypes = stringList(metadata, 'grant_types', GRANT_TYPES, [...GRANT_TYPES]);
  if (!grantTypes.includes('authorization_code')) throw invalidMetadata('grant_types must include authorization_code.');
  const responseTypes = stringList(metadata, 'response_types', RESPONSE_TYPES, [...RESPONSE_TYPES]);
  const clientName = optionalString(metadata, 'client_name', MAX_CLIENT_NAME);
  const scope = optionalString(metadata, 'scope', 200);
  const extra: Record<string, unknown> = { application_type: applicationType(metadata, uris) };
  for (const field of OPTIONAL_STRING_FIELDS) {
    const value = optionalString(metadata, field);
    if (value === undefined) continue;
    const problem = WEB_ADDRESS_FIELDS.includes(field) ? webAddressProblem(value) : undefined;
    if (problem) throw invalidMetadata(`${field} ${problem}.`);
    extra[field] = value;
  }
  return { redirectUris: uris, grantTypes, responseTypes, clientName, scope, extra };
}

export async function registerClient(deps: DomainDeps, body: unknown): Promise<RegisteredClient> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidMetadata('Send the client metadata as a JSON object.');
  }
  const metadata = body as Record<string, unknown>;
  const { redirectUris: uris, grantTypes, responseTypes, clientName, scope, extra } = readClientMetadata(metadata);
  const method = (metadata.token_endpoint_auth_method ?? 'none') as TokenEndpointAuthMethod;
  if (!TOKEN_ENDPOINT_AUTH_METHODS.includes(method)) {
    throw invalidMetadata(`token_endpoint_auth_method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}.`);
  }

  const now = deps.now();
  const clientId = newSecret(CLIENT_ID_PREFIX, 18);
  const clientSecret = method === 'none' ? undefined : newSecret(CLIENT_SECRET_PREFIX);
  const record: OAuthClientRecord = {
    id: clientId,
    secretHash: clientSecret === undefined ? null : hashSecret(clientSecret),
    tokenEndpointAuthMethod: method,
    clientName: clientName ?? null,
    redirectUris: uris,
    grantTypes,
    scope: scope ?? null,
    metadata: extra,
    createdAt: now,
    documentExpiresAt: null,
  };
  await deps.repos.oauth.createClient(record);
  return {
    client_id: clientId,
    ...(clientSecret === undefined ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 }),
    client_id_issued_at: Math.floor(now / 1000),
    redirect_uris: uris,
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    response_types: responseTypes,
    ...(clientName === undefined ? {} : { client_name: clientName }),
    ...(scope === undefined ? {} : { scope }),
    ...extra,
  };
}

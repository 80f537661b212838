/**
 * The REST client: openapi-fetch typed by Herald's OpenAPI spec, through the SDK's transport (an Idempotency-Key per
 * write, retries after Retry-After). Calls answer `{ data, error, response }` as openapi-fetch does; `unwrap` turns
 * one into its data or a typed error.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../generated/rest/openapi-types.js';
import { errorFromResponse } from './errors.js';
import { heraldFetch, type TransportOptions } from './transport.js';

export interface HeraldClientOptions extends TransportOptions {
  /** Where Herald runs, e.g. http://localhost:8080 (the /v1/rest prefix is added). */
  baseUrl: string;
  /** An API key or OAuth access token. */
  token?: string;
  /**
   * In a browser signed in to the web app instead of a token: the session cookie goes along by itself, and this
   * CSRF token (the app's page carries it) proves the call comes from Herald's own page.
   */
  csrfToken?: string;
}

export type HeraldClient = Client<paths>;

/** A typed REST client: `client.GET('/posts', { params: { query: { livePosts: true } } })`. */
export function createHeraldClient(options: HeraldClientOptions): HeraldClient {
  if (!options.token && !options.csrfToken) {
    throw new Error(
      'createHeraldClient needs a token (an API key or OAuth access token), or, in the web app, its csrfToken',
    );
  }
  const headers: Record<string, string> = options.token
    ? { Authorization: `Bearer ${options.token}` }
    : { 'X-CSRF-Token': options.csrfToken! };
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, '') + '/v1/rest',
    headers,
    fetch: heraldFetch(options),
  });
}

/** What an openapi-fetch call resolves to. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful call, or the typed error (HeraldValidationError, HeraldNotFoundError, ...) of a refusal. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw errorFromResponse(response, error);
  return data as T;
}

import { HEADER, type Output } from './output.js';

/** The SDK a consumer imports as `herald/sdk`: an openapi-fetch client typed by the REST spec. */
export function generateSdk(): Output[] {
  const content = `${HEADER}import createClient, { type Client } from 'openapi-fetch';
import type { paths, components } from '../rest/openapi-types.js';

export type { paths, components };
export type Post = components['schemas']['Post'];
export type Channel = components['schemas']['Channel'];
export type HeraldError = components['schemas']['Error'];

export interface HeraldClientOptions {
  /** Where Herald runs, e.g. http://localhost:8080 (the /v1/rest prefix is added). */
  baseUrl: string;
  /** An API key or OAuth access token. */
  token: string;
  fetch?: typeof globalThis.fetch;
}

export type HeraldClient = Client<paths>;

/** A typed REST client: \`client.GET('/posts', { params: { query: { livePosts: true } } })\`. */
export function createHeraldClient(options: HeraldClientOptions): HeraldClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\\/+$/, '') + '/v1/rest',
    headers: { Authorization: \`Bearer \${options.token}\` },
    fetch: options.fetch,
  });
}
`;
  return [{ file: 'sdk/index.ts', content }];
}

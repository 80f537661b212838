import type { TestHerald } from './herald.js';

/**
 * Opens an address a network's consent redirected to: on the test's Herald through its api(), whose connections
 * end with the instance (a kept-alive fetch() connection would hold up the server's drain at close), elsewhere
 * with fetch().
 */
export async function openRedirect(
  t: TestHerald,
  address: string,
): Promise<{ status: number; text(): Promise<string> }> {
  if (!address.startsWith(`${t.url}/`)) return fetch(address);
  const answer = await t.api('GET', address.slice(t.url.length));
  const text =
    typeof answer.body === 'string' ? answer.body : answer.body === undefined ? '' : JSON.stringify(answer.body);
  return { status: answer.status, text: async () => text };
}

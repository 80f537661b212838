/**
 * Redirect URIs a client may register (OAuth 2.1 section 2.3.1, RFC 8252 section 7.3):
 * - an absolute https URL, or http on a loopback host (127.0.0.1, [::1], localhost) for native apps;
 * - no fragment;
 * - no userinfo (`https://user:pw@host/`): it hides the real host from a person reading the URI and
 *   leaks credentials into logs;
 * - at authorization time the URI must equal a registered one exactly, character for character.
 * A client's other web addresses (its home page, logo, terms and policy) follow the same scheme and userinfo
 * rules (webAddressProblem), fragments allowed.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why the URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (!URL.canParse(value)) return 'is not an absolute URL';
  if (value.includes('#')) return 'must not contain a fragment (#...)';
  return webAddressProblem(value);
}

/** Why a client's web address (redirect URI, home page, logo) may not be registered, or undefined when it may. */
export function webAddressProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value))
    return 'must not contain a user name or password (user:pw@)';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must use https, or http on a loopback address (127.0.0.1, [::1] or localhost)';
}

/** http on a loopback host: where a native application listens (RFC 8252 section 7.3). */
export function isLoopbackRedirectUri(value: string): boolean {
  const url = new URL(value);
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

export function isRegisteredRedirectUri(registered: readonly string[], candidate: string): boolean {
  return registered.includes(candidate);
}

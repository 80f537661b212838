/** Paths of the authorization server's endpoints (SPEC, OAuth endpoints). */
export const OAUTH_PREFIX = '/oauth2/mcp';

export const OAUTH_ENDPOINTS = {
  authorize: `${OAUTH_PREFIX}/authorize`,
  signIn: `${OAUTH_PREFIX}/authorize/sign-in`,
  decision: `${OAUTH_PREFIX}/authorize/decision`,
  signOut: `${OAUTH_PREFIX}/authorize/sign-out`,
  token: `${OAUTH_PREFIX}/token`,
  register: `${OAUTH_PREFIX}/register`,
  revoke: `${OAUTH_PREFIX}/revoke`,
  stylesheet: `${OAUTH_PREFIX}/assets/pages.css`,
} as const;

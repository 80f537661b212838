import type { OAuth2Network } from './oauth2-client.js';

/**
 * Google's OAuth endpoints and its token refusals, shared by every connector on the operator's Google app
 * (YouTube, Google Business Profile): one app, one consent screen, so one set of reasons a refresh is refused
 * (Google's OAuth web-server guide: revoked, six months unused, seven days while the app is in Testing).
 */
export const GOOGLE_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
export const GOOGLE_TOKENINFO_URL = 'https://oauth2.googleapis.com/tokeninfo';

export const GOOGLE_OAUTH: OAuth2Network = {
  name: 'Google',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  clientAuth: 'body',
  appSettings: 'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET',
  reconnectHint:
    "the person removed Herald's access, the token went unused for six months, " +
    'or the Google app is in "Testing", where refresh tokens expire after seven days: ' +
    'publish the app on the OAuth consent screen',
};

import { InsufficientScopeError } from './errors.js';

export const SCOPES = ['read_profile', 'manage_post', 'manage_team'] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes every token must carry (SPEC, Authentication 4). */
export const REQUIRED_SCOPES: readonly Scope[] = ['read_profile', 'manage_post'];

/** Who is calling: every query is scoped by accountId. */
export interface Principal {
  accountId: string;
  userId: string;
  tokenId: string;
  /** `session`: a person signed in to the web app, calling REST from its page. */
  tokenKind: 'api_key' | 'oauth' | 'session';
  scopes: Scope[];
  /** A person signed in to the web app: their browser's browserBinding (src/domain/sessions.ts). */
  browser?: string;
  /** An OAuth token's RFC 8707 resource: the one URL it was issued for (src/domain/oauth/resources.ts). */
  resource?: string;
  /**
   * A person signed in to the web app whose role is reviewer: decides on held posts (the approval actions)
   * without managing the team. Keys and tokens review with manage_team.
   */
  reviews?: boolean;
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function missingRequiredScopes(scopes: readonly string[]): Scope[] {
  return REQUIRED_SCOPES.filter((scope) => !scopes.includes(scope));
}

/** Who may take the approval actions: a manager (manage_team), or a reviewer signed in to the app. */
export function canReview(principal: Principal): boolean {
  return Boolean(principal.reviews) || principal.scopes.includes('manage_team');
}

export function requireReviewer(principal: Principal): void {
  if (!canReview(principal)) throw new InsufficientScopeError('manage_team');
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw new InsufficientScopeError(scope);
}

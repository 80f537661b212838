/**
 * The one page of the web app rendered on the server: signing in, before the single-page app may load. Every
 * value is escaped, it has no script, and its form carries the CSRF token.
 */
import { escapeHtml } from '../../http/html.js';

export interface PageContext {
  csrf: string;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430}
header{padding:.6rem 1.2rem;background:#1d2430;color:#fff;min-height:3.2rem;display:flex;align-items:center}
main{max-width:28rem;margin:2rem auto;padding:0 1.2rem}label{display:block;margin:.8rem 0 .2rem}
input{font:inherit;width:100%;padding:.3rem}
button{font:inherit;cursor:pointer;padding:.3rem .8rem;border:1px solid #1a56b0;border-radius:.3rem;background:#1a56b0;
color:#fff}.problem{color:#a4001c}
:focus-visible{outline:3px solid #f0a500;outline-offset:2px}`;

export function signInPage(
  context: PageContext,
  extra: { email?: string; problem?: string; next?: string } = {},
): string {
  const nextField =
    extra.next && extra.next !== '/app' ? `<input type="hidden" name="next" value="${escapeHtml(extra.next)}">` : '';
  return `<!doctype
 html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in · Herald</title><link rel="icon" type="image/svg+xml" href="/app/favicon.svg">
<style>${STYLE}</style></head><body><header><strong>Herald</strong></header>
<main><h1>Sign in</h1>${extra.problem ? `<p class="problem" role="alert">${escapeHtml(extra.problem)}</p>` : ''}
<form method="post" action="/app/sign-in">
<input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}">${nextField}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(extra.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p></form></main></body></html>`;
}

/**
 * The server-rendered pages of the authorization endpoint: sign in, consent, and the error page for
 * requests that cannot be sent back to the client. Every value is HTML-escaped; there is no script at
 * all, so the pages work without JavaScript and the CSP needs no 'unsafe-inline'; the layout is one
 * narrow column that reads on a phone.
 */
import { escapeHtml } from '../http/html.js';
import type { Response } from 'express';
import type { Scope } from '../domain/principal.js';
import { OAUTH_ENDPOINTS } from './endpoints.js';

const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read_profile: 'See your profile, workspaces and channels',
  manage_post: 'Create, schedule, edit and delete posts, and use labels, calendars, media and AI tools',
  manage_team: 'Team actions: approve, reject and assign posts, and bulk delete or bulk label posts',
};

export interface PageContext {
  /** The authorization request's query string, carried through the forms and checked again on every step. */
  authorizationRequest: string;
  csrfToken: string;
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Herald</title>
<link rel="stylesheet" href="${OAUTH_ENDPOINTS.stylesheet}">
</head>
<body>
<main>
<p class="brand">Herald</p>
${body}
</main>
</body>
</html>
`;
}

function hiddenFields(context: PageContext): string {
  return `<input type="hidden" name="csrf_token" value="${escapeHtml(context.csrfToken)}">
<input type="hidden" name="authorization_request" value="${escapeHtml(context.authorizationRequest)}">`;
}

/** The client as a person should judge it: its name, and for a metadata document client the site that published it. */
interface ClientIdentity {
  clientName: string | null;
  /** The host of the client_id URL; absent for registered clients, whose name is all they gave. */
  clientHost?: string;
}

function clientLabel(client: ClientIdentity): string {
  const name = client.clientName ? escapeHtml(client.clientName) : 'An application that did not give its name';
  return client.clientHost === undefined
    ? name
    : `${name} <span class="from">from <strong class="host">${escapeHtml(client.clientHost)}</strong></span>`;
}

export function signInPage(context: PageContext & ClientIdentity & { email?: string; problem?: string }): string {
  return layout(
    'Sign in',
    `<h1>Sign in to connect <span class="client">${clientLabel(context)}</span></h1>
${context.problem ? `<p class="problem" role="alert">${escapeHtml(context.problem)}</p>` : ''}
<form method="post" action="${OAUTH_ENDPOINTS.signIn}">
${hiddenFields(context)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(context.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function consentPage(
  context: PageContext &
    ClientIdentity & {
      redirectHost: string;
      /**
       * The redirect goes to this computer, which any local program can listen on: said for metadata document clients.
       */
      redirectIsLocal: boolean;
      userEmail: string;
      fixedScopes: readonly Scope[];
      /** Only a person whose role holds manage_team is offered it. */
      offerManageTeam: boolean;
      manageTeamChecked: boolean;
    },
): string {
  const fixed = context.fixedScopes
    .map((scope) => `<li><strong>${scope}</strong><br><span>${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</span></li>`)
    .join('\n');
  const localWarning =
    context.clientHost !== undefined && context.redirectIsLocal
      ? '<p class="problem">This application receives your answer on this computer ' +
        `(${escapeHtml(context.redirectHost)}), where any program could be listening. Allow only if you have just ` +
        `started it from ${escapeHtml(context.clientHost)}'s application on this computer.</p>\n`
      : '';
  return layout(
    'Allow access',
    `<h1><span class="client">${clientLabel(context)}</span> wants to use your Herald account</h1>
<p>Signed in as <strong>${escapeHtml(context.userEmail)}</strong>. After you decide, you will be sent to
<strong class="host">${escapeHtml(context.redirectHost)}</strong>.</p>
${localWarning}
<form method="post" action="${OAUTH_ENDPOINTS.decision}">
${hiddenFields(context)}
<p>It will be able to:</p>
<ul class="scopes">
${fixed}
</ul>
${
  context.offerManageTeam
    ? `<p class="optional">
<input id="manage_team" name="manage_team" type="checkbox" value="yes"${context.manageTeamChecked ? ' checked' : ''}>
<label for="manage_team"><strong>manage_team</strong> (optional)<br>
<span>${escapeHtml(SCOPE_DESCRIPTIONS.manage_team)}</span></label>
</p>
`
    : ''
}<div class="actions">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
<form method="post" action="${OAUTH_ENDPOINTS.signOut}" class="switch">
${hiddenFields(context)}
<button type="submit" class="link">Not you? Sign in as someone else</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return layout(
    'Cannot continue',
    `<h1>This connection cannot continue</h1>
<p class="problem" role="alert">${escapeHtml(message)}</p>
<p>Close this page and start again from the application you were connecting to Herald.</p>`,
  );
}

export const PAGES_STYLESHEET = `*{box-sizing:border-box}
body{margin:0;padding:0 .75rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;
background:#f4f5f8}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:12px;
box-shadow:0 1px 4px rgba(0,0,0,.08)}
.brand{font-weight:700;color:#4353ff;margin:0 0 1rem}
h1{font-size:1.3rem;line-height:1.3;margin:0 0 1rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;padding:.7rem;font-size:1rem;border:1px solid #c5c9d3;
border-radius:8px}
button{display:block;width:100%;margin-top:1.25rem;padding:.8rem;font-size:1rem;font-weight:600;color:#fff;
background:#4353ff;border:0;border-radius:8px;cursor:pointer}
button.secondary{color:#1d2330;background:#e6e8ee;margin-top:.75rem}
.problem{padding:.75rem;background:#fdecec;color:#8a1c1c;border-radius:8px}
.scopes{padding-left:1.2rem}.scopes li{margin:.5rem 0}.scopes span,.optional span{color:#566075;font-size:.9rem}
.optional{display:flex;gap:.6rem;align-items:flex-start;padding:.75rem;border:1px solid #e0e3ea;border-radius:8px}
.optional input{margin-top:.35rem;width:1.2rem;height:1.2rem}.optional label{margin:0;font-weight:400}
.host{word-break:break-all}
.from{font-weight:400;font-size:1rem}
.switch{margin-top:1rem;text-align:center}
button.link{display:inline;width:auto;margin:0;padding:.25rem;color:#4353ff;background:none;font-weight:400;
text-decoration:underline}
`;

/**
 * Headers every page carries: no framing, no inline code, nothing cached, forms post only to us (and the redirect that
 * follows them).
 */
export function sendPage(res: Response, status: number, html: string, formTargets: string[] = []): void {
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "style-src 'self'",
      `form-action 'self'${formTargets.map((origin) => ' ' + origin).join('')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).type('html').send(html);
}

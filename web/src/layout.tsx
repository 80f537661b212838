/**
 * What every page has: the navigation (managers see the team's pages too), sign-out (a real form: it ends the
 * session on the server), and banners for what the team must act on — a channel that needs reconnecting, scheduled
 * posts the rehearsal before their time found at risk (with a link to the first), a webhook endpoint Herald
 * disabled — re-read on every page change.
 * On a phone (600 px and narrower) the header is one slim bar: the navigation and sign-out fold into a menu behind
 * a Menu button, which closes on Escape (focus back on the button) and whenever the page changes.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, csrfToken } from './api.js';
import { Link } from './router.js';
import { useMe } from './session.js';
import { networkName } from './ui/network-name.js';
import { useApi } from './ui/use-api.js';

const NAV: { href: string; label: string; managers?: boolean; reviewers?: boolean }[] = [
  { href: '/app', label: 'Posts' },
  { href: '/app/compose', label: 'Compose' },
  { href: '/app/calendar', label: 'Calendar' },
  { href: '/app/insights', label: 'Insights' },
  { href: '/app/approvals', label: 'Approvals', reviewers: true },
  { href: '/app/channels', label: 'Channels', managers: true },
  { href: '/app/settings', label: 'Settings' },
];

interface Banner {
  text: string;
  link?: { href: string; label: string };
}

async function banners(manages: boolean): Promise<Banner[]> {
  const [channels, webhooks, atRisk] = await Promise.all([
    call(api.GET('/channels')),
    manages ? call(api.GET('/webhooks')) : Promise.resolve(undefined),
    call(api.GET('/posts/scheduled', { params: { query: { atRisk: true, limit: 20 } } })),
  ]);
  const found: Banner[] = channels.data
    .filter((c) => c.status === 'needs_reconnect')
    .map((c) => ({
      text:
        `The ${networkName(c.network)} channel ${c.displayName ?? c.name} needs reconnecting ` +
        `(${c.statusReason ?? 'the network refused its credentials'}): its posts fail until it is reconnected on the ` +
        'Channels page.',
    }));
  const risky = atRisk.data.filter((p) => p.risk);
  if (risky.length > 0) {
    const count =
      risky.length === 1
        ? 'A scheduled post'
        : `${atRisk.paging.hasMore ? 'More than ' : ''}${risky.length} scheduled posts`;
    found.push({
      text: `${count} may not go out: ${risky[0].risk!.reason}`,
      link: {
        href: `/app/posts/${encodeURIComponent(risky[0].id)}`,
        label: risky.length === 1 ? 'See what to do' : 'See the first of them',
      },
    });
  }
  for (const endpoint of webhooks?.data ?? []) {
    if (!endpoint.enabled)
      found.push({
        text:
          `Herald disabled the webhook endpoint ${endpoint.url}: ${endpoint.disabledReason ?? 'it kept failing'}. ` +
          'Fix the receiver, then enable it again.',
      });
  }
  return found;
}

export function Layout(props: { path: string; children: ComponentChildren }) {
  const me = useMe();
  const alerts = useApi(() => banners(me?.manages ?? false), [props.path, me?.manages], { keepPrevious: true });
  const current = (href: string) =>
    href === '/app' ? props.path === '/app' : props.path === href || props.path.startsWith(`${href}/`);
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => setOpen(false), [props.path]);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">
          <img src="/app/favicon.svg" alt="" width={22} height={22} />
          Herald
        </strong>
        <button
          type="button"
          class="menu-toggle"
          ref={toggle}
          aria-expanded={open}
          aria-controls="main-menu"
          onClick={() => setOpen(!open)}
        >
          <span aria-hidden="true">{open ? '✕' : '☰'}</span> Menu
        </button>
        <div id="main-menu" class={open ? 'menu open' : 'menu'}>
          <nav aria-label="Main">
            {NAV.filter((item) => (item.reviewers ? me?.reviews : !item.managers || me?.manages)).map((item) => (
              <Link key={item.href} href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
                {item.label}
              </Link>
            ))}
          </nav>
          <form method="post" action="/app/sign-out" class="sign-out">
            <input type="hidden" name="csrf_token" value={csrfToken} />
            <span class="who">{me?.email ?? ''}</span> <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      {(alerts.data ?? []).map(({ text, link }) => (
        <p class="banner" role="status" key={text}>
          {text}
          {link && (
            <>
              {' '}
              <Link href={link.href}>{link.label}</Link>
            </>
          )}
        </p>
      ))}
      <main id="main">{props.children}</main>
    </>
  );
}

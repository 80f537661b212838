/** The Settings section: its pages, and what a page that needs manage_team says to someone without it. */
import type { ComponentChildren } from 'preact';
import './settings.css';
import { Link } from '../router.js';
import { useMe } from '../session.js';

const SECTIONS = [
  { href: '/app/settings', label: 'Workspace' },
  { href: '/app/settings/members', label: 'Members' },
  { href: '/app/settings/labels', label: 'Labels' },
  { href: '/app/settings/api-keys', label: 'API keys' },
  { href: '/app/settings/connected-apps', label: 'Connected apps' },
  { href: '/app/settings/webhooks', label: 'Webhooks' },
];

export function SettingsNav() {
  const path = location.pathname.replace(/\/$/, '');
  return (
    <nav class="settings-nav" aria-label="Settings">
      {SECTIONS.map((s) => (
        <Link key={s.href} href={s.href} aria-current={path === s.href ? 'page' : undefined}>
          {s.label}
        </Link>
      ))}
    </nav>
  );
}

/** What a person without manage_team sees instead of a manager's controls: who can do it, and what to do. */
export function ManagersOnly(props: { children: ComponentChildren }) {
  return (
    <p class="managers-only" id="managers-only">
      {props.children} Owners and admins of a workspace can; ask one of them, or ask an owner to make you an admin.
    </p>
  );
}

/** Whether the signed-in person holds manage_team; undefined while their profile is on its way. */
export function useManages(): boolean | undefined {
  return useMe()?.manages;
}

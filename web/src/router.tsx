/**
 * Addresses inside the app: /app/... paths in the browser's history, matched against the route table. Links to
 * addresses the app knows are followed without reloading; anything else (sign-out, the API) is a normal link.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { routes, type RouteParams } from './routes.js';

export interface Match {
  component: (props: { params: RouteParams; query: URLSearchParams }) => JSX.Element;
  params: RouteParams;
}

export function match(pathname: string): Match | undefined {
  for (const route of routes) {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}/?$`,
    );
    const found = pattern.exec(pathname);
    if (!found) continue;
    try {
      return {
        component: route.component,
        params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(found[i + 1])])),
      };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const listeners = new Set<() => void>();

/** Asked before the app leaves the page for another of its own (a form with unsaved work); false stays put. */
let mayLeave: (() => boolean) | undefined;

/** While the calling page is shown, `ask` decides whether the app may leave it. */
export function useLeaveGuard(ask: () => boolean): void {
  useEffect(() => {
    mayLeave = ask;
    return () => {
      if (mayLeave === ask) mayLeave = undefined;
    };
  }, [ask]);
}

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  const url = new URL(href, location.href);
  if (url.origin !== location.origin || !match(url.pathname)) {
    location.assign(url.href);
    return;
  }
  // A replaced address is the same page changing its view; anything else leaves it (a full load asks by itself).
  if (!options.replace && mayLeave && !mayLeave()) return;
  if (options.replace) history.replaceState(null, '', url.href);
  else history.pushState(null, '', url.href);
  for (const listener of listeners) listener();
  // A replaced address is the same page changing its view (a filter): it stays where the person was.
  if (!options.replace) window.scrollTo(0, 0);
}

/** The current address, re-rendering on navigation and on the browser's back and forward. */
export function useLocation(): URL {
  const [url, setUrl] = useState(() => new URL(location.href));
  useEffect(() => {
    const update = () => setUrl(new URL(location.href));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return url;
}

export function Link(
  props: { href: string; children: ComponentChildren } & Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href'>,
) {
  const { href, children, ...rest } = props;
  const onClick = (event: MouseEvent) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    const url = new URL(href, location.href);
    if (url.origin !== location.origin || !match(url.pathname)) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

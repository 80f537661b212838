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

/**
 * Asked before the app leaves the page for another of its own (a form with unsaved work); one false stays put. A
 * page's forms may share one question: it is asked once, however many of them registered it.
 */
const guards: (() => boolean)[] = [];
const mayLeave = () => [...new Set(guards)].every((ask) => ask());

/** While the calling component is shown, `ask` decides, with any others shown, whether the app may leave it. */
export function useLeaveGuard(ask: () => boolean): void {
  useEffect(() => {
    guards.push(ask);
    return () => {
      guards.splice(guards.indexOf(ask), 1);
    };
  }, [ask]);
}

/**
 * Each entry of the app's history carries its place (`at`), so a Back or Forward the leave guard refuses can be
 * undone by stepping as far the other way: the browser has already moved when it says so (popstate).
 */
interface Place {
  at: number;
}

const placeOf = (state: unknown): number => (typeof (state as Place | null)?.at === 'number' ? (state as Place).at : 0);

let here = placeOf(history.state);
/** Set while the app steps back to where a refused Back or Forward left from; that step is not a navigation. */
let undoing = false;
if (typeof (history.state as Place | null)?.at !== 'number') history.replaceState({ at: here }, '');

addEventListener('popstate', (event) => {
  const to = placeOf(event.state);
  if (undoing) {
    undoing = false;
    here = to;
    return;
  }
  if (to !== here && !mayLeave()) {
    undoing = true;
    history.go(here - to);
    return;
  }
  here = to;
  for (const listener of listeners) listener();
});

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  const url = new URL(href, location.href);
  if (url.origin !== location.origin || !match(url.pathname)) {
    location.assign(url.href);
    return;
  }
  // A replaced address is the same page changing its view; anything else leaves it (a full load asks by itself).
  if (!options.replace && !mayLeave()) return;
  if (options.replace) history.replaceState({ at: here }, '', url.href);
  else history.pushState({ at: ++here }, '', url.href);
  for (const listener of listeners) listener();
  // A replaced address is the same page changing its view (a filter): it stays where the person was.
  if (!options.replace) window.scrollTo(0, 0);
}

/** The current address, re-rendering on navigation and on the browser's back and forward the guard lets through. */
export function useLocation(): URL {
  const [url, setUrl] = useState(() => new URL(location.href));
  useEffect(() => {
    const update = () => setUrl(new URL(location.href));
    listeners.add(update);
    return () => {
      listeners.delete(update);
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

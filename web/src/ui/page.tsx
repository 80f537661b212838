/**
 * The frame of every page: its title (also the document's), focus moved to it on arrival so a screen reader
 * announces the new page, and the states a page can be in while its data comes.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { ApiError } from '../api.js';
import { inPeoplesWords, problemInPeoplesWords } from './problems.js';

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Herald`;
    heading.current?.focus({ preventScroll: true });
  }, [props.title]);
  return (
    <>
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.actions}
      </div>
      {props.children}
    </>
  );
}

/** Space held for content on its way, so nothing shifts when it arrives. */
export function Loading(props: { label: string; rows?: number }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="visually-hidden">{props.label}</span>
      {Array.from({ length: props.rows ?? 3 }, (_, i) => (
        <div key={i} class="skeleton" aria-hidden="true" />
      ))}
    </div>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="empty">{props.children}</div>;
}

/** A refusal or failure in words that say what to change. */
export function Problem(props: { error?: ApiError | string; id?: string }) {
  if (!props.error) return null;
  const { error } = props;
  const message = typeof error === 'string' ? error : problemInPeoplesWords(error);
  return (
    <p class="problem" role="alert" id={props.id}>
      {message}
    </p>
  );
}

/** The server's problems with one field, in people's words, placed beside it and tied to it for screen readers. */
export function FieldProblems(props: { error?: ApiError; field: string; id: string }) {
  const { error, field } = props;
  const messages = [...new Set((error?.problemsAt(field) ?? []).map((m) => inPeoplesWords(error!.code, field, m)))];
  // Always there, empty when all is well, so a field may name it in aria-describedby before anything is refused.
  return (
    <div id={props.id} class="field-problems">
      {messages.map((m) => (
        <p class="problem" role="alert" key={m}>
          {m}
        </p>
      ))}
    </div>
  );
}

/** A post's or channel's state as a word with its colour, never colour alone. */
export function StatusBadge(props: { status: string | null | undefined }) {
  const value = props.status ?? 'live';
  return <span class={`status ${value}`}>{value.replace(/_/g, ' ')}</span>;
}

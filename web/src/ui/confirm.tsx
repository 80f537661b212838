/**
 * A question before an action that cannot be undone, in place of the button that asked it: the safe answer has the
 * focus when it appears (so Enter does no harm), and the person's place is given back when they decline.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Confirm(props: { id?: string; label: string; children: ComponentChildren; yes: string; no: string; busy: boolean; onYes: () => void; onNo: () => void }) {
  const safe = useRef<HTMLButtonElement>(null);
  useEffect(() => safe.current?.focus(), []);
  return (
    <div class="confirm" role="group" aria-label={props.label}>
      {props.children}
      <button type="button" class="danger" disabled={props.busy} onClick={props.onYes}>{props.yes}</button>{' '}
      <button type="button" ref={safe} disabled={props.busy} onClick={props.onNo}>{props.no}</button>
    </div>
  );
}

/** Focus back on the button that opened a question, once it is shown again. */
export function refocus(button: { current: HTMLElement | null }): void {
  requestAnimationFrame(() => button.current?.focus());
}

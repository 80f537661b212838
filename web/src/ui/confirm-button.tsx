/**
 * A button for what cannot be undone (revoke, delete): the first press asks, in place, and moves focus to the
 * confirming button; Cancel (or Escape) puts things back. No browser dialog, so it reads and works like the page.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function ConfirmButton(props: {
  label: string;
  ariaLabel: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useLayoutEffect(() => {
    if (asking) confirm.current?.focus();
    else if (wasAsking.current) first.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" ref={first} aria-label={props.ariaLabel} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  const go = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <span
      class="confirm"
      role="group"
      aria-label={props.question}
      onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}
    >
      <span>{props.question}</span>{' '}
      <button type="button" class="danger" ref={confirm} disabled={busy} onClick={go}>
        {props.confirmLabel}
      </button>{' '}
      <button type="button" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

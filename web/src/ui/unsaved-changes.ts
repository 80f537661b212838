/**
 * Unsaved changes in a form (the settings, a channel's time zone, its queue's slots, connecting a network): leaving
 * the page while a form's fields differ from what it showed or last saved asks first, as the composer does, through
 * a link, Back and Forward (the router's leave guard) or reloading and closing (the browser's own question). A page
 * with several changed forms asks once.
 */
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useLeaveGuard } from '../router.js';

/** Whether each form shown now has unsaved changes. */
const forms = new Set<() => boolean>();
const anyUnsaved = () => [...forms].some((unsaved) => unsaved());
/** What leaving unsaved changes asks, here and on the edit page. */
export const LEAVE_QUESTION = 'Leave without saving? Your changes are lost.';
/** The one question for all of a page's forms (the router asks a shared guard once). */
const askOnce = () => !anyUnsaved() || confirm(LEAVE_QUESTION);

addEventListener('beforeunload', (event) => {
  if (!anyUnsaved()) return;
  event.preventDefault();
  event.returnValue = '';
});

/** What the form's fields hold, read from the page, so fields a form does not keep in its state count too. */
function valuesOf(form: HTMLFormElement): string {
  const held = (field: Element) => {
    if (field instanceof HTMLInputElement)
      return field.type === 'checkbox' || field.type === 'radio' ? field.checked : field.value;
    return field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement ? field.value : null;
  };
  return JSON.stringify([...form.elements].map(held));
}

/**
 * Watches the form given `form` as its ref. `saved` says its fields as they are now are saved (or about to be
 * left on purpose, to a network's consent page), and as they are after the render it causes (a form cleared).
 */
export function useUnsavedChanges(): { form: RefObject<HTMLFormElement>; saved: () => void } {
  const form = useRef<HTMLFormElement>(null);
  const shown = useRef<{ form: HTMLFormElement; values: string }>();
  const [saves, setSaves] = useState(0);
  const taken = useRef(-1);
  // After every render: a form shown for the first time (or shown anew) is taken as it is, and again after a save.
  useLayoutEffect(() => {
    const now = form.current;
    if (!now || (shown.current?.form === now && taken.current === saves)) return;
    shown.current = { form: now, values: valuesOf(now) };
    taken.current = saves;
  });
  useEffect(() => {
    const unsaved = () => {
      const now = form.current;
      return now !== null && shown.current?.form === now && valuesOf(now) !== shown.current.values;
    };
    forms.add(unsaved);
    return () => {
      forms.delete(unsaved);
    };
  }, []);
  useLeaveGuard(askOnce);
  return {
    form,
    saved: () => {
      if (form.current) shown.current = { form: form.current, values: valuesOf(form.current) };
      setSaves((n) => n + 1);
    },
  };
}

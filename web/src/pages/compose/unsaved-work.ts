/**
 * Unsaved work: a new post's is kept as the person's draft in this browser (`keepFor`) as each change renders, and
 * leaving the composer with any (through a link, Back and Forward, or closing the page) asks first.
 */
import { useCallback, useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { useLeaveGuard } from '../../router.js';
import { LEAVE_QUESTION } from '../../ui/unsaved-changes.js';
import { differs, keepDraft, type Draft } from './draft-store.js';
import type { SavedPosts } from './saved.js';

export function useUnsavedWork(args: { keepFor?: string; draft: Draft; blank: Draft; saved?: SavedPosts }): {
  unsaved: boolean;
  /** Lets the composer be left without asking: a save is about to leave it. */
  leaveFreely: () => void;
} {
  const { keepFor, draft, blank, saved } = args;
  const unsaved = saved === undefined && differs(draft, blank);
  const unsavedNow = useRef(unsaved);
  unsavedNow.current = unsaved;
  const kept = JSON.stringify(draft);
  // Kept as each change renders, not after the next paint: a reload right after a keystroke keeps it too.
  useLayoutEffect(() => {
    if (keepFor && saved === undefined) keepDraft(keepFor, draft, blank);
  }, [keepFor, kept, saved]);
  const mayLeave = useCallback(
    () =>
      !unsavedNow.current ||
      confirm(
        keepFor
          ? 'Leave the composer? Nothing is posted yet; what you wrote stays here as a draft for when you come back.'
          : LEAVE_QUESTION,
      ),
    [keepFor],
  );
  useLeaveGuard(mayLeave);
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (!unsavedNow.current) return;
      event.preventDefault();
      event.returnValue = '';
    };
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, []);
  return {
    unsaved,
    leaveFreely: () => {
      unsavedNow.current = false;
    },
  };
}

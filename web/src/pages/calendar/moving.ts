/**
 * Moving a scheduled post: dropped on another day (it keeps its time of day) or hour of the week (it keeps its
 * minutes), or sent to a day and time from the keyboard's Move form. Each move can be undone, and the focus is
 * never left on a button that went away: after the form it goes to Undo, after Undo to the post.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type ApiError, call, toApiError } from '../../api.js';
import { formatTime } from '../../ui/time.js';
import type { Dragging, Entry } from './entry.js';
import { hourOf, slotKey } from './grid.js';

interface Moved {
  postId: string;
  text: string;
  from: string;
  to: string;
}

export interface DragAndDrop extends Dragging {
  /** The cell a dragged post is over (`slotKey`). */
  over: string | undefined;
  /** What makes a day (and in the week an hour of it) a place a post can be dropped on. */
  target: (day: string, hour?: number) => Record<string, unknown>;
}

export function useMoving(timezone: string, reload: () => Promise<void>) {
  const [moved, setMoved] = useState<Moved>();
  const [said, setSaid] = useState<string>();
  const [failure, setFailure] = useState<ApiError>();
  const [moving, setMoving] = useState<Entry>();
  const dragging = useRef<Entry>();
  const [over, setOver] = useState<string>();
  const undoButton = useRef<HTMLButtonElement>(null);
  // After a move from the keyboard form (which then goes away), the focus goes to Undo rather than being lost.
  const focusUndo = useRef(false);
  useEffect(() => {
    if (moved && focusUndo.current) undoButton.current?.focus();
    focusUndo.current = false;
  }, [moved]);

  async function move(entry: Entry, body: { day: string; time?: string } | { dateTime: string }): Promise<boolean> {
    setFailure(undefined);
    setSaid(undefined);
    try {
      const answer = await call(
        api.POST('/posts/{postId}/move', {
          params: { path: { postId: entry.postId } },
          body: 'day' in body ? { ...body, timezone } : body,
        }),
      );
      await reload();
      if ('day' in body)
        setMoved({ postId: entry.postId, text: entry.text, from: answer.meta.from, to: answer.data.dateTime ?? '' });
      else {
        const undoHadFocus = document.activeElement === undoButton.current;
        setMoved(undefined);
        setSaid(`Moved back to ${formatTime(answer.data.dateTime, timezone)}.`);
        // Undo goes away with the move it undid: the focus follows the post rather than falling to the page.
        if (undoHadFocus)
          requestAnimationFrame(() =>
            document.querySelector<HTMLElement>(`[data-post-id="${CSS.escape(entry.postId)}"]`)?.focus(),
          );
      }
      return true;
    } catch (caught) {
      setFailure(toApiError(caught));
      return false;
    }
  }

  const drag: DragAndDrop = {
    over,
    start: (entry, event) => {
      dragging.current = entry;
      event.dataTransfer?.setData('text/plain', entry.postId);
      if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
    },
    end: () => {
      dragging.current = undefined;
      setOver(undefined);
    },
    target: (day, hour) => {
      const key = slotKey(day, hour);
      const same = (entry: Entry) => entry.day === day && (hour === undefined || hourOf(entry) === hour);
      return {
        'data-day': day,
        'data-hour': hour,
        onDragOver: (event: DragEvent) => {
          if (!dragging.current || same(dragging.current)) return;
          event.preventDefault();
          setOver(key);
        },
        onDragLeave: () => setOver((current) => (current === key ? undefined : current)),
        onDrop: (event: DragEvent) => {
          const entry = dragging.current;
          dragging.current = undefined;
          setOver(undefined);
          if (!entry || same(entry)) return;
          event.preventDefault();
          void move(
            entry,
            hour === undefined ? { day } : { day, time: `${String(hour).padStart(2, '0')}:${entry.time.slice(3)}` },
          );
        },
      };
    },
  };

  return {
    moved,
    said,
    failure,
    /** The post the keyboard's Move form is open for. */
    moving,
    undoButton,
    drag,
    undo: () => moved && move({ postId: moved.postId, text: moved.text } as Entry, { dateTime: moved.from }),
    open: (entry: Entry) => setMoving(entry),
    cancel: () => {
      setMoving(undefined);
      setFailure(undefined);
    },
    moveTo: async (day: string, time: string) => {
      if (!moving) return;
      focusUndo.current = true;
      if (await move(moving, { day, time })) setMoving(undefined);
      else focusUndo.current = false;
    },
  };
}

export type Moving = ReturnType<typeof useMoving>;

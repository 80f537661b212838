/**
 * A post as the calendar shows it: its state as a word and an icon as well as a colour, so colour is never the
 * only sign; its channel's avatar and first image; a marker when the rehearsal found it at risk. A scheduled post
 * can be dragged, and has a Move button for those who cannot drag.
 */
import { Link } from '../../router.js';
import type { Calendar } from './period.js';

export type Entry = Calendar['entries'][number];

/** A shape for each state, so states differ by more than colour; the word is always shown too. */
export const ICONS: Record<Entry['status'], string> = {
  draft: '✎',
  scheduled: '◷',
  publishing: '↻',
  published: '✓',
  failed: '✕',
  unconfirmed: '?',
  live: '●',
};

export interface Dragging {
  start: (entry: Entry, event: DragEvent) => void;
  end: () => void;
}

export function EntryItem(props: {
  entry: Entry;
  avatar: string | undefined;
  drag: Dragging;
  onMove: (entry: Entry) => void;
}) {
  const { entry, avatar } = props;
  return (
    <li class={`entry ${entry.status}${entry.risk ? ' risky' : ''}`}>
      <Link
        href={`/app/posts/${encodeURIComponent(entry.postId)}`}
        data-post-id={entry.postId}
        draggable={entry.movable}
        onDragStart={(event: DragEvent) => props.drag.start(entry, event)}
        onDragEnd={props.drag.end}
      >
        {avatar && <img class="avatar" src={avatar} alt="" loading="lazy" />}
        <time dateTime={entry.at}>{entry.time}</time>{' '}
        <span class="state">
          <span class="icon" aria-hidden="true">
            {ICONS[entry.status]}
          </span>{' '}
          <span class="word">{entry.status}</span>
        </span>{' '}
        {entry.risk && (
          <span class="at-risk" title={entry.risk.reason}>
            <span aria-hidden="true">⚠</span> at risk
          </span>
        )}{' '}
        <span class="channel">{entry.channelName}</span>{' '}
        <span class="text">{entry.text.length > 80 ? `${entry.text.slice(0, 79)}…` : entry.text || '(no text)'}</span>
        {(entry.threadParts ?? 0) > 0 && (
          <small class="thread-parts"> (a thread: {(entry.threadParts ?? 0) + 1} parts)</small>
        )}
        {entry.imageUrl && <img class="thumb" src={entry.imageUrl} alt="" loading="lazy" />}
      </Link>
      {entry.movable && (
        <button
          type="button"
          class="move"
          aria-label={`Move the ${entry.time} post “${entry.text.slice(0, 40)}”`}
          onClick={() => props.onMove(entry)}
        >
          Move
        </button>
      )}
    </li>
  );
}

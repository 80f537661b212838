/**
 * The composer's unsaved work, kept in this browser's localStorage so a reload, a visit to another page or a
 * session that ended (in this tab or another) loses nothing: one draft per signed-in person (the key names their
 * user id, so someone else signing in on the same browser does not get it), holding only what the form holds
 * (text, channels, media addresses and alt texts, the thread's parts, options, time and zone), never a token. It goes
 * once the posts are saved or the person discards it.
 */
import type { ChosenMedia } from './media-field.js';

export type When = 'now' | 'schedule' | 'queue' | 'draft';

/** A part of the thread after the post itself: its text, and its files where the post it came from had some. */
export interface ThreadPartDraft {
  text: string;
  imageUrls: string[];
  videoUrls: string[];
}

/** Everything the form holds: empty for a new post, a post's own for an edit or a copy. */
export interface Draft {
  chosenIds: string[];
  text: string;
  ownText: Record<string, string>;
  media: ChosenMedia[];
  firstComment: string;
  firstCommentDelay: number | undefined;
  /** The thread's parts after the post itself; none for a single post. */
  thread: ThreadPartDraft[];
  labelIds: string[];
  options: Record<string, Record<string, string>>;
  when: When;
  dateTime: string;
  /** The zone the time is read in; the browser's when left empty. */
  timeZone: string;
}

export const BLANK: Draft = {
  chosenIds: [],
  text: '',
  ownText: {},
  media: [],
  firstComment: '',
  firstCommentDelay: undefined,
  thread: [],
  labelIds: [],
  options: {},
  when: 'now',
  dateTime: '',
  timeZone: '',
};

const keyFor = (userId: string) => `herald.compose-draft.${userId}`;

/** Whether the form holds anything a person wrote or chose, against what it started from. */
export function differs(draft: Draft, from: Draft): boolean {
  return JSON.stringify({ ...draft, timeZone: '' }) !== JSON.stringify({ ...from, timeZone: '' });
}

/** The person's kept draft, with channels that are gone dropped; undefined when there is none (or it is unreadable). */
export function readDraft(userId: string, channelIds: readonly string[]): Draft | undefined {
  try {
    const kept = localStorage.getItem(keyFor(userId));
    if (!kept) return undefined;
    const draft = { ...BLANK, ...(JSON.parse(kept) as Partial<Draft>) };
    return { ...draft, chosenIds: draft.chosenIds.filter((id) => channelIds.includes(id)) };
  } catch {
    return undefined;
  }
}

/** Keeps the draft, or forgets it when it is still as the composer opened (`blank`): nothing written yet. */
export function keepDraft(userId: string, draft: Draft, blank: Draft): void {
  try {
    if (differs(draft, blank)) localStorage.setItem(keyFor(userId), JSON.stringify(draft));
    else localStorage.removeItem(keyFor(userId));
  } catch {
    // Storage full or turned off: the form still works, the draft just does not outlive the page.
  }
}

export function forgetDraft(userId: string): void {
  try {
    localStorage.removeItem(keyFor(userId));
  } catch {
    // Nothing kept, nothing to forget.
  }
}

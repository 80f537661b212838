/**
 * The form's fields as state, one per field of the draft, and the draft they make together: what is kept in this
 * browser, compared with the blank form and sent when saved.
 */
import { type Dispatch, type StateUpdater, useState } from 'preact/hooks';
import { browserTimeZone } from '../../ui/time.js';
import type { Draft, ThreadPartDraft, When } from './draft-store.js';
import type { ChosenMedia } from './media-field.js';

type Setter<T> = Dispatch<StateUpdater<T>>;

/** How each field of the form changes; the delay of the first comment is not one the form offers. */
export interface DraftSetters {
  chosenIds: Setter<string[]>;
  text: Setter<string>;
  ownText: Setter<Record<string, string>>;
  media: Setter<ChosenMedia[]>;
  firstComment: Setter<string>;
  thread: Setter<ThreadPartDraft[]>;
  labelIds: Setter<string[]>;
  options: Setter<Record<string, Record<string, string>>>;
  when: Setter<When>;
  dateTime: Setter<string>;
  timeZone: Setter<string>;
}

export function useDraftFields(initial: Draft): { draft: Draft; set: DraftSetters } {
  const [chosenIds, setChosenIds] = useState<string[]>(initial.chosenIds);
  const [text, setText] = useState(initial.text);
  const [ownText, setOwnText] = useState<Record<string, string>>(initial.ownText);
  const [media, setMedia] = useState<ChosenMedia[]>(initial.media);
  const [firstComment, setFirstComment] = useState(initial.firstComment);
  const [thread, setThread] = useState<ThreadPartDraft[]>(initial.thread ?? []);
  const [labelIds, setLabelIds] = useState<string[]>(initial.labelIds);
  const [options, setOptions] = useState<Record<string, Record<string, string>>>(initial.options);
  const [when, setWhen] = useState<When>(initial.when);
  const [dateTime, setDateTime] = useState(initial.dateTime);
  const [timeZone, setTimeZone] = useState(initial.timeZone || browserTimeZone);
  return {
    draft: {
      chosenIds,
      text,
      ownText,
      media,
      firstComment,
      firstCommentDelay: initial.firstCommentDelay,
      thread,
      labelIds,
      options,
      when,
      dateTime,
      timeZone,
    },
    set: {
      chosenIds: setChosenIds,
      text: setText,
      ownText: setOwnText,
      media: setMedia,
      firstComment: setFirstComment,
      thread: setThread,
      labelIds: setLabelIds,
      options: setOptions,
      when: setWhen,
      dateTime: setDateTime,
      timeZone: setTimeZone,
    },
  };
}

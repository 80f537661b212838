/**
 * Herald's refusals in people's words. The server's messages are written for integrations (field names, ISO
 * times, request flags); where a page shows one, it passes it through here, by the error's code and the field it
 * concerns, and shows the server's own sentence only when no rule below knows it better.
 */

interface Rule {
  code?: string;
  field?: string;
  /** What the server said, when the code and field alone do not tell one problem from another. */
  said?: RegExp;
  words: string;
}

const RULES: Rule[] = [
  {
    code: 'invalid_request', field: 'dateTime', said: /already passed|in the future|future ISO/,
    words: 'That time has already passed: pick a time in the future, or choose Publish now.',
  },
  {
    code: 'invalid_request', field: 'addToQueue', said: /no posting schedule/,
    words: 'A chosen channel has no queue yet: give it weekly posting times from the Channels page (its queue), '
      + 'or pick a time instead.',
  },
  {
    code: 'post_not_editable',
    words: 'This post has started publishing or has been published, so it can no longer be changed. '
      + 'Duplicate it to post it again.',
  },
  { code: 'post_publishing', words: 'This post is being published right now. Wait a few seconds, then try again.' },
  {
    code: 'changed_since_read',
    words: 'This post was changed after this page showed it, so nothing was decided. Read it again before deciding.',
  },
];

export function inPeoplesWords(code: string, field: string | undefined, message: string): string {
  const rule = RULES.find((r) => (r.code === undefined || r.code === code)
    && (r.field === undefined || r.field === field)
    && (r.said === undefined || r.said.test(message)));
  return rule?.words ?? message;
}

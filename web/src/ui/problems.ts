/**
 * Herald's refusals in people's words. The server's messages are written for integrations (field names, ISO
 * times, request flags, the validator's phrases, ids); where a page shows one, it passes it through here, by the
 * error's code and the field it concerns, and shows the server's own sentence only when no rule below knows it
 * better. Fields are named as a person knows them (`fieldWords`), which the forms' labels use too.
 */
import type { ApiError } from '../api.js';

/** The request's fields as people call them; a field not here is spelled out from its name. */
const FIELD_WORDS: Record<string, string> = {
  channelIds: 'channels',
  channelId: 'channel',
  dateTime: 'time',
  timezone: 'time zone',
  imageUrls: 'images',
  videoUrls: 'videos',
  mediaIds: 'media',
  labelIds: 'labels',
  firstComment: 'first comment',
  textByChannel: 'text for that channel',
  permalinkUrl: 'address on the network',
  reviewerUserId: 'reviewer',
  eventTypes: 'events',
  url: 'address',
  email: 'email address',
  color: 'colour',
  identifier: 'handle',
  appPassword: 'app password',
  service: 'server',
  instance: 'server',
  site: 'site address',
  applicationPassword: 'application password',
  privateKey: 'private key',
  chat: 'channel or group',
  webhookUrl: 'webhook address',
  bunker: 'remote signer',
  altText: 'image descriptions',
  publishAt: 'publish time',
  slots: 'posting times',
  delayMinutes: 'delay',
  addToQueue: 'queue',
  langs: 'languages',
  location: 'business location',
};

/** The field a server path points at: `body.posts[0].channelIds` is channelIds, `textByChannel.<id>` its text. */
export function fieldOf(path: string): string {
  const names = path
    .replace(/^(body|query|params|headers)\./, '')
    .split('.')
    .map((p) => p.replace(/\[\d+\]$/, ''));
  const within = names.findIndex((n) => n === 'textByChannel' || n === 'channelOptions');
  return within >= 0 ? names[within] : (names.filter((n) => !/^\d+$/.test(n)).at(-1) ?? '');
}

/** A field's name in people's words, lower case: "app password", "channels". */
export function fieldWords(field: string): string {
  return FIELD_WORDS[field] ?? field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A field's name as a form's label: "App password". */
export function fieldLabel(field: string): string {
  const words = fieldWords(field);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Herald's rate budgets, by the name the server gives them, as what a person has used up. */
const ALLOWANCES: Record<string, string> = {
  'REST write budget': "the account's changes for this minute are used up (integrations and the AI helpers share them)",
  'REST read budget': "the account's reads for this minute are used up (integrations share them)",
  'account hourly budget': "the account's requests for this hour are used up",
  'web app budget of this person': 'your requests in the app for this minute are used up',
  'MCP budget of this token': "this assistant's requests for this minute are used up",
};

interface Rule {
  code?: string;
  /** The field the problem concerns; '*' for any field, so a phrase about a field is never said of none. */
  field?: string;
  /** What the server said, when the code and field alone do not tell one problem from another. */
  said?: RegExp;
  /** The words, or how to say them from what the server said and the field's name in people's words. */
  words: string | ((said: RegExpExecArray, field: string) => string);
}

const RULES: Rule[] = [
  {
    code: 'invalid_request',
    field: 'dateTime',
    said: /already passed|in the future|future ISO/,
    words: 'That time has already passed: pick a time in the future, or choose Publish now.',
  },
  {
    code: 'invalid_request',
    field: 'addToQueue',
    said: /no posting schedule/,
    words:
      'A chosen channel has no queue yet: give it weekly posting times from the Channels page (its queue), ' +
      'or pick a time instead.',
  },
  {
    code: 'invalid_request',
    field: 'channelIds',
    said: /fewer than 1 items|required property/,
    words: 'Choose at least one channel.',
  },
  {
    code: 'invalid_request',
    field: 'timezone',
    said: /IANA|Unknown time ?zone|required property/,
    words: 'Choose a time zone from the list: type its city, such as Berlin or New York, and pick it.',
  },
  {
    code: 'invalid_request',
    field: 'color',
    said: /pattern|must be/,
    words: 'Choose a colour from the colour picker.',
  },
  // A network's limit, said of one channel by its id: the network's own sentence is the person's.
  { code: 'invalid_request', said: /^Channel [0-9a-z]{26}: (.+)$/s, words: (said) => said[1] },
  {
    code: 'invalid_request',
    said: /^No channel [0-9a-z]{26}/,
    words: 'A chosen channel is no longer in this account: choose another on the Channels page.',
  },
  // A connect form's field left out: the network's own description of it says what to give.
  { field: '*', said: /^\w+ is required: (.+)$/s, words: (said, field) => `Fill in the ${field}: ${said[1]}.` },
  // The request validator's phrases, for any field, naming it as people do.
  { field: '*', said: /must have required property/, words: (_, field) => `Fill in the ${field}.` },
  { field: '*', said: /must NOT have fewer than 1 items/, words: (_, field) => `Choose at least one of the ${field}.` },
  {
    field: '*',
    said: /must NOT have fewer than (\d+) characters/,
    words: (said, field) =>
      said[1] === '1' ? `Fill in the ${field}.` : `The ${field} needs at least ${said[1]} characters.`,
  },
  {
    field: '*',
    said: /must NOT have more than (\d+) (characters|items)/,
    words: (said, field) =>
      `The ${field} can have at most ${said[1]} ${said[2] === 'items' ? 'entries' : 'characters'}` + '.',
  },
  {
    field: '*',
    said: /must match format "(uri|url)"/,
    words: (_, field) => `The ${field} must be a web address starting with https://.`,
  },
  { field: '*', said: /must match format "email"/, words: 'Give an email address such as ana@example.com.' },
  { field: '*', said: /must match format "date-time"/, words: 'Choose a date and a time.' },
  {
    field: '*',
    said: /must be equal to one of the allowed values/,
    words: (_, field) => `Choose one of the ${field} offered.`,
  },
  {
    field: '*',
    said: /must (match pattern|be (string|integer|number|boolean|array|object))/,
    words: (_, field) => `Check the ${field}.`,
  },
  {
    code: 'post_not_editable',
    words:
      'This post has started publishing or has been published, so it can no longer be changed. ' +
      'Duplicate it to post it again.',
  },
  { code: 'post_publishing', words: 'This post is being published right now. Wait a few seconds, then try again.' },
  {
    code: 'changed_since_read',
    words: 'This post was changed after this page showed it, so nothing was decided. Read it again before deciding.',
  },
  {
    code: 'rate_limited',
    said: /for the (.+?)\. Wait (\d+) seconds?/,
    words: (said) =>
      `That was a lot at once: ${ALLOWANCES[said[1]] ?? 'the allowance is used up'}. ` +
      `Wait ${said[2]} second${said[2] === '1' ? '' : 's'}, then try again.`,
  },
  { code: 'rate_limited', words: 'That was a lot at once. Wait a minute, then try again.' },
  { code: 'unauthorized', words: 'Your session has ended: sign in again.' },
  { code: 'insufficient_scope', words: 'Your role does not allow this. Ask an owner or admin of the workspace.' },
  { code: 'forbidden', words: 'Your role does not allow this. Ask an owner or admin of the workspace.' },
  { code: 'not_found', words: 'This is no longer here: it may have been deleted. Go back and look again.' },
];

export function inPeoplesWords(code: string, field: string | undefined, message: string): string {
  for (const rule of RULES) {
    if (rule.code !== undefined && rule.code !== code) continue;
    if (rule.field !== undefined && (rule.field === '*' ? field === undefined : rule.field !== field)) continue;
    const said = rule.said ? rule.said.exec(message) : /^/.exec(message)!;
    if (!said) continue;
    return typeof rule.words === 'string' ? rule.words : rule.words(said, fieldWords(field ?? ''));
  }
  return message;
}

/**
 * A whole refusal in people's words: each field's problem where the server named fields (its summary speaks of
 * paths), else the refusal itself.
 */
export function problemInPeoplesWords(error: ApiError): string {
  if (error.details.length === 0) return inPeoplesWords(error.code, undefined, error.message);
  const each = error.details.map((d) => inPeoplesWords(error.code, fieldOf(d.path) || undefined, d.message));
  return [...new Set(each)].join(' ');
}

/**
 * A post's text as LinkedIn's "little" text format, which `commentary` is (learn.microsoft.com, LinkedIn Marketing,
 * community-management/shares/little-text-format), and back.
 *
 * Rules kept here:
 * - every reserved character, `| { } @ [ ] ( ) < > # \ * _ ~`, is escaped with a backslash, even outside an
 *   element: LinkedIn cuts a post short at an unescaped one ("Launch notes (v2)" would end at "Launch notes ");
 * - the only elements Herald makes are hashtags: a `#` that starts a word (at the start of the text or after a space)
 *   followed by letters or digits stays a HashtagElement, as a person writing "#launch" means one; Herald makes no
 *   mentions, so an `@` is always text;
 * - read back, escapes are undone and elements shown as a person sees them (a mention as its name), so Herald can
 *   match its own posts and show the text of others.
 */
/** A hashtag Herald keeps (its `#` starting a word), else one reserved character to escape. */
const HASHTAG_OR_RESERVED = /(?:^|(?<=\s))#[\p{L}\p{N}]+|[|{}@[\]()<>#\\*_~]/gu;

export function toLittleText(text: string): string {
  return text.replace(HASHTAG_OR_RESERVED, (found) => (found.length > 1 ? found : `\\${found}`));
}

const LITTLE_PARTS = /\\(.)|@\[([^\]]*)\]\s?\(urn:li:[a-zA-Z]+:[^)]+\)|\{hashtag\|\\?([#＃])\|([^}]*)\}/gsu;

export function fromLittleText(little: string): string {
  return little.replace(
    LITTLE_PARTS,
    (_, escaped?: string, mention?: string, sign?: string, tag?: string) => escaped ?? mention ?? `${sign}${tag}`,
  );
}

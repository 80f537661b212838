import { capabilitiesOf, type TextCounting } from './capabilities.js';

/**
 * Counting a post's text the way its network does, and fitting text to a limit.
 *
 * Rules kept here:
 * - code points: each Unicode code point is one (Mastodon, LinkedIn, ...);
 * - graphemes: each user-perceived character is one, as Intl.Segmenter splits them, so a family emoji joined by
 *   ZWJ is one (Bluesky);
 * - UTF-8 bytes: each byte of the text encoded as UTF-8 is one (YouTube's description, a cap in bytes);
 * - UTF-16 code units: each 16-bit unit is one, so an emoji outside the Basic Multilingual Plane is two (TikTok's
 *   caption, counted in "UTF-16 runes");
 * - emoji as UTF-8 bytes: each code point is one, except an emoji (a whole sequence, as Intl.Segmenter splits it),
 *   which counts the UTF-8 bytes it takes (Threads: 👍 is 4, a family joined by ZWJ 25);
 * - X's weighting (twitter-text v3 configuration, [XD counting-characters]): text is NFC-normalised; each
 *   http(s):// or www. link counts 23 whatever its length; each emoji counts 2; other code points count 1 in
 *   U+0000-U+10FF, U+2000-U+200D, U+2010-U+201F and U+2032-U+2037, else 2 (CJK among them). twitter-text also
 *   counts bare domains ("example.com") as links; Herald does not recognise those, so such a short link may be
 *   counted below X's count and refused by X at publish time;
 * - fitting never cuts inside a grapheme, and the result counts at most the limit the network's way.
 */

const X_LINK_WEIGHT = 23;
const X_LIGHT_RANGES: readonly (readonly [number, number])[] = [
  [0x0000, 0x10ff],
  [0x2000, 0x200d],
  [0x2010, 0x201f],
  [0x2032, 0x2037],
];
const LINK = /\b(?:https?:\/\/|www\.)[^\s]+/giu;
const LINK_TRAILING_PUNCTUATION = /[.,;:!?'")\]}]+$/u;
const PICTOGRAPH = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const EMOJI_PRESENTATION = '\u{FE0F}';

/** TextEncoder rather than Buffer: this module also runs in the web app's composer, in the browser. */
const UTF8 = new TextEncoder();

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function splitGraphemes(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** The length of text as the network counts it. */
export function countText(network: string, text: string): number {
  return countBy(capabilitiesOf(network).text.counting, text);
}

export function countBy(counting: TextCounting, text: string): number {
  switch (counting) {
    case 'code_points':
      return [...text].length;
    case 'graphemes':
      return splitGraphemes(text).length;
    case 'x_weighted':
      return xWeightedLength(text);
    case 'utf8_bytes':
      return UTF8.encode(text).length;
    case 'utf16_units':
      return text.length;
    case 'emoji_utf8_bytes':
      return splitGraphemes(text).reduce((sum, g) => sum + (isEmoji(g) ? UTF8.encode(g).length : [...g].length), 0);
  }
}

/** What a network's count counts, for messages. */
export function countingUnit(counting: TextCounting): string {
  return counting === 'utf8_bytes' ? 'bytes' : 'characters';
}

/** Says how a network counts, for messages; empty for plain code points. */
export function countingNote(counting: TextCounting): string {
  switch (counting) {
    case 'code_points':
      return '';
    case 'graphemes':
      return ' (counted as a person sees them: an emoji is one)';
    case 'x_weighted':
      return ' (X counts each link as 23, and each emoji and CJK character as 2)';
    case 'utf8_bytes':
      return ' (UTF-8: an accented letter is 2, an emoji 4 or more)';
    case 'utf16_units':
      return ' (counted in UTF-16 units: most emoji are 2)';
    case 'emoji_utf8_bytes':
      return ' (each emoji counts as its bytes of UTF-8: 4 or more)';
  }
}

function xWeightedLength(text: string): number {
  const normalised = text.normalize('NFC');
  let length = 0;
  let rest = '';
  let from = 0;
  for (const match of normalised.matchAll(LINK)) {
    const link = match[0].replace(LINK_TRAILING_PUNCTUATION, '');
    rest += normalised.slice(from, match.index);
    from = match.index + link.length;
    length += X_LINK_WEIGHT;
  }
  rest += normalised.slice(from);
  for (const grapheme of splitGraphemes(rest)) {
    if (isEmoji(grapheme)) length += 2;
    else for (const char of grapheme) length += isLight(char.codePointAt(0)!) ? 1 : 2;
  }
  return length;
}

/** A whole emoji sequence (ZWJ family, flag, keycap) weighs 2; a light symbol such as "©" only with U+FE0F. */
function isEmoji(grapheme: string): boolean {
  if (grapheme.includes(EMOJI_PRESENTATION) && [...grapheme].length > 1) return true;
  return PICTOGRAPH.test(grapheme) && !isLight(grapheme.codePointAt(0)!);
}

function isLight(codePoint: number): boolean {
  return X_LIGHT_RANGES.some(([start, end]) => codePoint >= start && codePoint <= end);
}

/**
 * Shortens text to `limit` as `count` measures it: at a sentence end if one is close, else at a word boundary
 * ending with "…". Text within the limit comes back with only its spacing tidied.
 */
export function fitText(text: string, limit: number, count: (text: string) => number = (t) => [...t].length): string {
  const clean = text
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (count(clean) <= limit) return clean;
  const head = longestPrefix(splitGraphemes(clean), (prefix) => count(`${prefix}…`) <= limit);
  const sentenceEnd = Math.max(
    head.lastIndexOf('. '),
    head.lastIndexOf('! '),
    head.lastIndexOf('? '),
    head.lastIndexOf('\n'),
  );
  if (sentenceEnd >= limit * 0.6) return head.slice(0, sentenceEnd + 1).trim();
  const wordEnd = head.lastIndexOf(' ');
  return `${(wordEnd > limit * 0.5 ? head.slice(0, wordEnd) : head).trim()}…`;
}

/** The longest run of leading graphemes that `fits`; counts only grow with text, so a binary search finds it. */
function longestPrefix(parts: readonly string[], fits: (prefix: string) => boolean): string {
  let low = 0;
  let high = parts.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(parts.slice(0, mid).join(''))) low = mid;
    else high = mid - 1;
  }
  return parts.slice(0, low).join('');
}

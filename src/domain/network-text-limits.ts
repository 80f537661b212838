/**
 * How many characters a post may have on each network (the networks' published limits). Counted in
 * Unicode code points, which is what most networks count; X weighs some characters double, so Herald keeps
 * X text within 280 code points and leaves the exact weighting to the network's own check.
 */
const LIMITS: Record<string, number> = {
  x: 280,
  twitter: 280,
  bluesky: 300,
  threads: 500,
  mastodon: 500,
  pinterest: 500,
  instagram: 2200,
  tiktok: 2200,
  linkedin: 3000,
  youtube: 5000,
  facebook: 63206,
  sandbox: 5000,
};

/** Used for networks Herald does not know by name. */
export const DEFAULT_TEXT_LIMIT = 2200;

export function textLimit(network: string | undefined): number {
  return (network && LIMITS[network.toLowerCase()]) || DEFAULT_TEXT_LIMIT;
}

export function textLength(text: string): number {
  return [...text].length;
}

/** Shortens text to the limit, at a sentence end if one is close, else a word boundary, ending with "…". */
export function fitText(text: string, limit: number): string {
  const clean = text.replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
  const points = [...clean];
  if (points.length <= limit) return clean;
  const head = points.slice(0, limit - 1).join('');
  const sentenceEnd = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '), head.lastIndexOf('\n'));
  if (sentenceEnd >= limit * 0.6) return head.slice(0, sentenceEnd + 1).trim();
  const wordEnd = head.lastIndexOf(' ');
  return `${(wordEnd > limit * 0.5 ? head.slice(0, wordEnd) : head).trim()}…`;
}

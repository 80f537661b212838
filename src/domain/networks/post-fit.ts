import { titleAndBody, type ChannelOptionRule, type MediaKind, type NetworkCapabilities } from './capabilities.js';
import { countBy, countingNote, countingUnit } from './text-length.js';

/**
 * Whether a post fits a network, checked against the capabilities table; each problem names the network and the rule.
 *
 * Rules enforced:
 * - text within the network's limit, counted its way (and within its byte cap, where it has one), and within its
 *   lower limit when the post carries media (Telegram's caption, Slack's section block); a connection that
 *   reports a higher limit (a Mastodon instance) raises it; text and options free of the characters the network
 *   refuses in them (YouTube: < and > in a title or description);
 * - media: only the kinds the network takes, at most so many of each and in all, kinds mixed only where the network
 *   mixes them, and media at all where the network needs it (a URL ending ".gif" is a GIF where the network has a
 *   rule for GIFs, else an image);
 * - a file Herald knows (its own media library's, whose type, size, dimensions and duration it read when the file
 *   came in) also within the network's format, size, pixel, aspect-ratio and duration rules; any other URL is only
 *   seen when the post goes out, by the media check (which holds it to the same formats: formatProblem) and the
 *   connector;
 * - a first comment, where the network makes one, within the network's text limit (NETWORKS.md gives no separate
 *   comment limits: an X reply is a post); where it makes none the comment is ignored (SPEC), not refused, except on
 *   a network SPEC promises first comments on that cannot make them (TikTok), where it is refused with the reason;
 * - a thread's parts only where the network takes threads (else refused, saying which networks do), each part
 *   held on its own to the same text and media rules as a post (its problems at `thread[i].text`, ...); a part needs
 *   text or media;
 * - on a titled network (Reddit) a title, from channelOptions.title or the text's first line, within its limit, and
 *   no text beyond the title where media or a link option leave the post no body;
 * - channelOptions the network defines have the right type and length, and the media some of their values ask for
 *   (an Instagram reel: one video); required ones are checked only when `requireOptions` is set (on update, and
 *   before publishing), because create ignores channelOptions (SPEC).
 */
export type FitRule =
  | 'text_length'
  | 'text_bytes'
  | 'text_characters'
  | 'media_kind'
  | 'media_count'
  | 'media_mix'
  | 'media_required'
  | 'media_file'
  | 'first_comment_length'
  | 'first_comment_unsupported'
  | 'thread_unsupported'
  | 'thread_part_empty'
  | 'channel_option'
  | 'title';

export interface FitProblem {
  network: string;
  rule: FitRule;
  path: string;
  message: string;
}

/** What Herald read of a file in its media library when it came in. */
export interface KnownMedia {
  mimeType: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

export interface PostForFit {
  text: string;
  imageUrls: readonly string[];
  videoUrls: readonly string[];
  /** The post's media URLs Herald knows the files of (media-library URLs), by URL. */
  knownMedia?: ReadonlyMap<string, KnownMedia>;
  firstComment?: { text: string } | null;
  /** The parts after the first, each held to the network's limits like a post. */
  thread?: readonly { text: string; imageUrls: readonly string[]; videoUrls: readonly string[] }[] | null;
  channelOptions?: Record<string, unknown> | null;
}

/** The networks that take threads, as a person reads them. */
export const THREAD_NETWORKS_WORDS = 'X, Bluesky, Threads and Mastodon';

export interface FitOptions {
  /** The channel's own text limit, where its connection reported one (see NetworkCapabilities.text.raisedBy). */
  textLimit?: number;
  requireOptions?: boolean;
}

/** TextEncoder rather than Buffer: these checks also run in the web app's composer, in the browser. */
const UTF8 = new TextEncoder();

const KIND_WORDS: Record<MediaKind, [one: string, many: string, field: string]> = {
  image: ['image', 'images', 'imageUrls'],
  gif: ['GIF', 'GIFs', 'imageUrls'],
  video: ['video', 'videos', 'videoUrls'],
};

/**
 * The text limit a channel's posts are held to: the network's, or the higher one its connection reported where the
 * network lets it.
 */
export function textLimitOf(capabilities: NetworkCapabilities, channelTextLimit?: number | null): number {
  return capabilities.text.raisedBy && channelTextLimit
    ? Math.max(channelTextLimit, capabilities.text.limit)
    : capabilities.text.limit;
}

export function validatePost(
  capabilities: NetworkCapabilities,
  post: PostForFit,
  options: FitOptions = {},
): FitProblem[] {
  const problems: FitProblem[] = [];
  const problem = (rule: FitRule, path: string, message: string) =>
    problems.push({ network: capabilities.name, rule, path, message });
  const name = capabilities.displayName;

  const limit = textLimitOf(capabilities, options.textLimit);
  const note = countingNote(capabilities.text.counting);
  const unit = countingUnit(capabilities.text.counting);
  checkText(capabilities, post.text, limit, '', problem, post.imageUrls.length + post.videoUrls.length > 0);
  checkMedia(capabilities, post, problem);
  if (capabilities.title) checkTitle(capabilities, capabilities.title, post, problem);

  const thread = post.thread ?? [];
  if (thread.length > 0 && !capabilities.threads) {
    problem(
      'thread_unsupported',
      'thread',
      `${name} does not take threads (${THREAD_NETWORKS_WORDS} do); ` +
        'publish the parts as separate posts, or remove the thread for this channel.',
    );
  } else {
    thread.forEach((part, i) => {
      const prefix = `thread[${i}].`;
      if (part.text.trim() === '' && part.imageUrls.length === 0 && part.videoUrls.length === 0) {
        const empty = `Part ${i + 2} of the thread is empty; give it text or media, or remove it.`;
        problem('thread_part_empty', `${prefix}text`, empty);
        return;
      }
      const before = problems.length;
      checkText(capabilities, part.text, limit, prefix, problem, part.imageUrls.length + part.videoUrls.length > 0);
      checkMedia(capabilities, { ...part, knownMedia: post.knownMedia }, problem, prefix);
      // Said as a person counts the parts: the post itself is part 1.
      for (const found of problems.slice(before)) found.message = `Part ${i + 2} of the thread: ${found.message}`;
    });
  }

  if (post.firstComment && capabilities.firstCommentRefused)
    problem('first_comment_unsupported', 'firstComment', `${name} ${capabilities.firstCommentRefused}`);
  if (post.firstComment && capabilities.firstComment !== 'none') {
    const commentLength = countBy(capabilities.text.counting, post.firstComment.text);
    if (commentLength > limit) {
      problem(
        'first_comment_length',
        'firstComment.text',
        `${name} allows ${limit} ${unit} in a first comment; this one has ${commentLength}${note}. Shorten it.`,
      );
    }
  }

  for (const rule of capabilities.channelOptions) {
    const value = post.channelOptions?.[rule.name];
    const path = `channelOptions.${rule.name}`;
    if (value === undefined || value === null) {
      if (rule.required && options.requireOptions)
        problem(
          'channel_option',
          path,
          `${name} needs channelOptions.${rule.name} (${rule.description}); set it with an update.`,
        );
      continue;
    }
    const wrong = typeProblem(rule, value);
    const refusedInOption = typeof value === 'string' ? forbiddenIn(value, rule.forbiddenCharacters) : undefined;
    if (wrong) problem('channel_option', path, `${name}: channelOptions.${rule.name} ${wrong}.`);
    else if (refusedInOption) {
      problem('channel_option', path, `${name} does not take ${refusedInOption} in ${path}; remove or replace it.`);
    } else if (rule.maxLength !== undefined && typeof value === 'string' && [...value].length > rule.maxLength) {
      problem(
        'channel_option',
        path,
        `${name} allows ${rule.maxLength} characters in channelOptions.${rule.name}; this one ` +
          `has ${[...value].length}. Shorten it.`,
      );
    } else if (
      rule.maxLength !== undefined &&
      Array.isArray(value) &&
      value.some((item) => [...String(item)].length > rule.maxLength!)
    ) {
      const at = value.findIndex((item) => [...String(item)].length > rule.maxLength!);
      problem(
        'channel_option',
        `${path}[${at}]`,
        `${name} allows ${rule.maxLength} characters in each of ` +
          `channelOptions.${rule.name}; item ${at} has ${[...String(value[at])].length}. Shorten it.`,
      );
    } else {
      const needs = typeof value === 'string' ? rule.media?.[value] : undefined;
      const images = post.imageUrls.length;
      const videos = post.videoUrls.length;
      if (
        needs &&
        (images + videos === 0 ||
          images + videos > needs.maxItems ||
          (images > 0 && !needs.kinds.includes('image')) ||
          (videos > 0 && !needs.kinds.includes('video')))
      ) {
        problem(
          'channel_option',
          path,
          `${name}: a post with channelOptions.${rule.name} "${value}" carries ${needs.words}; this one ` +
            `has ${images} image(s) and ${videos} video(s).`,
        );
      }
    }
  }
  return problems;
}

/** A titled network's title and, where media or a link leave no body, the text beyond it. */
function checkTitle(
  capabilities: NetworkCapabilities,
  rule: NonNullable<NetworkCapabilities['title']>,
  post: PostForFit,
  problem: (rule: FitRule, path: string, message: string) => void,
): void {
  const name = capabilities.displayName;
  const fromOption = typeof post.channelOptions?.title === 'string' && post.channelOptions.title.trim() !== '';
  const { title, body } = titleAndBody(post.text, post.channelOptions?.title);
  const path = fromOption ? 'channelOptions.title' : 'text';
  if (title === '') {
    problem('title', path, `${name} needs a title: write it as the text's first line, or give channelOptions.title.`);
  } else if (!fromOption && [...title].length > rule.limit) {
    problem(
      'title',
      path,
      `${name} takes the text's first line as the title, at most ${rule.limit} characters; this one has ` +
        `${[...title].length}. Shorten it, or give channelOptions.title.`,
    );
  }
  const media = post.imageUrls.length + post.videoUrls.length > 0;
  const option = rule.bodyless.option;
  const linked = option !== undefined && typeof post.channelOptions?.[option] === 'string';
  if (linked && !/^https?:\/\/[^\s/]+\.[^\s]*$/i.test(String(post.channelOptions?.[option!]))) {
    problem(
      'channel_option',
      `channelOptions.${option}`,
      `${name}: channelOptions.${option} must be a web address (https://...).`,
    );
  }
  if (linked && media) {
    problem(
      'title',
      `channelOptions.${option}`,
      `${name}: a link post carries no images; remove the images or the link.`,
    );
  }
  if (body !== '' && ((rule.bodyless.media && media) || linked)) {
    const what = linked ? `a post with channelOptions.${option}` : 'a post with images';
    problem(
      'title',
      'text',
      `${name} shows no text beyond the title on ${what}: keep the text to its title line ` +
        `(or give it as channelOptions.title and leave the text empty), or post the text on its own.`,
    );
  }
}

/** The text of a post or of one of its parts against the network's length, characters and bytes. */
function checkText(
  capabilities: NetworkCapabilities,
  text: string,
  limit: number,
  prefix: string,
  problem: (rule: FitRule, path: string, message: string) => void,
  hasMedia: boolean,
): void {
  const name = capabilities.displayName;
  const length = countBy(capabilities.text.counting, text);
  const note = countingNote(capabilities.text.counting);
  const unit = countingUnit(capabilities.text.counting);
  if (length > limit) {
    problem(
      'text_length',
      `${prefix}text`,
      `${name} allows ${limit} ${unit}; this text has ${length}${note}. Shorten it.`,
    );
  }
  const captionLimit = capabilities.text.withMediaLimit;
  if (captionLimit !== undefined && hasMedia && length <= limit && length > captionLimit) {
    problem(
      'text_length',
      `${prefix}text`,
      `${name} allows ${captionLimit} ${unit} in a post with media; this text has ${length}${note}. ` +
        'Shorten it, or post the media on their own.',
    );
  }
  const refused = forbiddenIn(text, capabilities.text.forbiddenCharacters);
  if (refused) {
    problem('text_characters', `${prefix}text`, `${name} does not take ${refused} in the text; remove or replace it.`);
  }
  const bytes = UTF8.encode(text).length;
  if (capabilities.text.maxBytes !== undefined && bytes > capabilities.text.maxBytes) {
    problem(
      'text_bytes',
      `${prefix}text`,
      `${name} allows ${capabilities.text.maxBytes} bytes of text (UTF-8); this text has ${bytes}. Shorten it.`,
    );
  }
}

function checkMedia(
  capabilities: NetworkCapabilities,
  post: Pick<PostForFit, 'imageUrls' | 'videoUrls' | 'knownMedia'>,
  problem: (rule: FitRule, path: string, message: string) => void,
  prefix = '',
): void {
  const { media, displayName: name } = capabilities;
  const counts: Record<MediaKind, number> = { image: 0, gif: 0, video: post.videoUrls.length };
  const imageKind = (url: string): MediaKind =>
    media.kinds.gif && (post.knownMedia?.get(url)?.mimeType === 'image/gif' || isGif(url)) ? 'gif' : 'image';
  for (const url of post.imageUrls) counts[imageKind(url)]++;
  post.imageUrls.forEach((url, i) =>
    checkFile(capabilities, imageKind(url), `${prefix}imageUrls[${i}]`, post.knownMedia?.get(url), problem),
  );
  post.videoUrls.forEach((url, i) =>
    checkFile(capabilities, 'video', `${prefix}videoUrls[${i}]`, post.knownMedia?.get(url), problem),
  );
  const present = (Object.keys(counts) as MediaKind[]).filter((kind) => counts[kind] > 0);
  const total = post.imageUrls.length + post.videoUrls.length;

  if (total === 0 && media.required) {
    const kinds = (Object.keys(media.kinds) as MediaKind[]).map((kind) => KIND_WORDS[kind][0]);
    problem(
      'media_required',
      `${prefix}imageUrls`,
      `${name} posts need media (${kinds.join(' or ')}); ` +
        `add ${kinds.includes('image') ? 'imageUrls or ' : ''}videoUrls.`,
    );
  }
  for (const kind of present) {
    const [one, many, field] = KIND_WORDS[kind];
    const rule = media.kinds[kind];
    if (!rule) problem('media_kind', `${prefix}${field}`, `${name} does not take ${many}; remove them from ${field}.`);
    else if (counts[kind] > rule.maxCount)
      problem(
        'media_count',
        `${prefix}${field}`,
        `${name} allows ${rule.maxCount} ${one}(s) per post; this post has ${counts[kind]}.`,
      );
  }
  if (!media.mixKinds && present.length > 1) {
    const words = present.map((kind) => KIND_WORDS[kind][1]);
    problem(
      'media_mix',
      `${prefix}videoUrls`,
      `${name} takes one kind of media per post, and this post has ${words.join(' and ')}; split them into separate ` +
        'posts.',
    );
  } else if (total > media.maxItems) {
    problem(
      'media_count',
      `${prefix}imageUrls`,
      `${name} allows ${media.maxItems} media items per post; this post has ${total}.`,
    );
  }
}

const MB = 1024 * 1024;

/** The format names the capabilities table uses, from a file's media type. */
function formatOf(mimeType: string): string {
  const subtype = mimeType.split('/')[1] ?? mimeType;
  return subtype === 'quicktime' ? 'mov' : subtype;
}

const FORMAT_NAMES: Readonly<Record<string, string>> = {
  jpeg: 'JPEG',
  png: 'PNG',
  gif: 'GIF',
  webp: 'WebP',
  mp4: 'MP4',
  mov: 'MOV',
  webm: 'WebM',
};

function formatName(format: string): string {
  return FORMAT_NAMES[format] ?? format;
}

/**
 * Why a file of this media type is not taken where the network names the formats of its kind, or undefined; also
 * asked when the post goes out, of a file whose type Herald sees only then (publishing's media check).
 */
export function formatProblem(
  capabilities: NetworkCapabilities,
  kind: MediaKind,
  mimeType: string,
  path: string,
): string | undefined {
  const formats = capabilities.media.kinds[kind]?.formats;
  const format = formatOf(mimeType);
  if (!formats || formats.includes(format)) return undefined;
  const taken = formats.map(formatName).join(' or ');
  const what = `${capabilities.displayName} takes ${KIND_WORDS[kind][1]} as ${taken}`;
  return `${what}; ${path} is ${formatName(format)}. Convert it, or choose another file.`;
}

/** A known file against its kind's rule: format, size, pixels, aspect ratio and duration. */
function checkFile(
  capabilities: NetworkCapabilities,
  kind: MediaKind,
  path: string,
  file: KnownMedia | undefined,
  problem: (rule: FitRule, path: string, message: string) => void,
): void {
  const rule = capabilities.media.kinds[kind];
  if (!file || !rule) return;
  const name = capabilities.displayName;
  const [one] = KIND_WORDS[kind];
  const wrongFormat = formatProblem(capabilities, kind, file.mimeType, path);
  if (wrongFormat) problem('media_file', path, wrongFormat);
  if (rule.maxBytes !== undefined && file.sizeBytes > rule.maxBytes) {
    problem(
      'media_file',
      path,
      `${name} takes ${one}s of at ` +
        `most ${(rule.maxBytes / MB).toFixed(0)} MB; ${path} is ${(file.sizeBytes / MB).toFixed(1)} MB.`,
    );
  }
  if (file.width && file.height) {
    if (rule.maxPixels !== undefined && file.width * file.height > rule.maxPixels) {
      problem(
        'media_file',
        path,
        `${name} takes ${one}s of at ` +
          `most ${rule.maxPixels.toLocaleString('en')} pixels; ${path} is ${file.width} x ${file.height}.`,
      );
    }
    const ratio = file.width / file.height;
    if (rule.aspectRatio && (ratio < rule.aspectRatio.min - 0.005 || ratio > rule.aspectRatio.max + 0.005)) {
      problem(
        'media_file',
        path,
        `${name} takes ${one}s from ${ratioWords(rule.aspectRatio.min)} to ` +
          `${ratioWords(rule.aspectRatio.max)} (width to height); ${path} is ${file.width} x ${file.height}. Crop it.`,
      );
    }
  }
  if (file.durationMs !== null) {
    const seconds = file.durationMs / 1000;
    if (rule.minSeconds !== undefined && seconds < rule.minSeconds)
      problem(
        'media_file',
        path,
        `${name} takes ${one}s of at least ${rule.minSeconds} s; ${path} lasts ${seconds.toFixed(1)} s.`,
      );
    if (rule.maxSeconds !== undefined && seconds > rule.maxSeconds)
      problem(
        'media_file',
        path,
        `${name} takes ${one}s of at most ${rule.maxSeconds} s; ${path} lasts ${seconds.toFixed(1)} s.`,
      );
  }
}

function ratioWords(ratio: number): string {
  return Number.isInteger(ratio) ? `${ratio}:1` : ratio.toFixed(2).replace(/0$/, '');
}

/** The refused characters the text holds, in words ("< and >"), or undefined. */
function forbiddenIn(text: string, forbidden: string | undefined): string | undefined {
  const found = [...(forbidden ?? '')].filter((char) => text.includes(char));
  return found.length > 0 ? found.join(' and ') : undefined;
}

function isGif(url: string): boolean {
  try {
    return new URL(url).pathname.toLowerCase().endsWith('.gif');
  } catch {
    return false;
  }
}

function typeProblem(rule: ChannelOptionRule, value: unknown): string | undefined {
  const { type } = rule;
  if (type === 'string') return typeof value === 'string' ? undefined : 'must be a string';
  if (type === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false';
  if (type === 'string[]')
    return Array.isArray(value) && value.every((v) => typeof v === 'string')
      ? undefined
      : 'must be an array of strings';
  return typeof value === 'string' && type.oneOf.includes(value)
    ? undefined
    : `must be one of ${type.oneOf.join(', ')}`;
}

import { ValidationError } from '../errors.js';

/**
 * What each network takes: the one table that post validation, AI rewriting, the web app and the connectors read.
 *
 * Rules kept here:
 * - every network Herald can hold a channel for is a row; a network that is not a row has no connector, and a
 *   channel or post naming it is refused with "Herald has no connector for network ..." (see capabilitiesOf);
 * - `twitter` is another name for `x`; names are matched case-insensitively;
 * - text is counted the network's way (code points, graphemes, X's weighting, UTF-8 bytes, UTF-16 code units, or
 *   emoji as their UTF-8 bytes: see text-length.ts);
 * - a connection may report a higher text limit than the row's default (a Mastodon instance's
 *   `max_characters`, an X account allowed longer posts): `text.raisedBy` says who may raise it;
 * - where the text of a post with media goes where less fits, such a post is held to that lower limit
 *   (`text.withMediaLimit`: Telegram's caption, 1,024; Slack's section block, 3,000);
 * - first comments apply where SPEC lists them (Instagram, LinkedIn, Facebook Pages, YouTube; X as a reply) and where
 *   the network has its own way (replies on Bluesky, Mastodon, Nostr, Telegram, Discord and Slack, comments on
 *   WordPress and Reddit), with a
 *   media URL on LinkedIn and Facebook only; elsewhere they are ignored, except where a network SPEC lists has no
 *   way to make one (TikTok, Pinterest), and on Google Business Profile, whose local posts take no comments: there a
 *   first comment is refused when the post is written (`firstCommentRefused`);
 * - threads (a post's parts as a reply chain) only where the network replies to one's own posts: the sandbox, X,
 *   Bluesky, Mastodon and Threads; each part is held to the same limits as a post;
 * - a titled network's post (Reddit) has a title within its limit, and no text beyond it where media or a link
 *   leave no room for a body (`title`, checked in post-fit.ts);
 * - sizes, durations, aspect ratios and pixel counts cannot be known from any URL at create time: they are checked
 *   then for files of Herald's own media library, whose facts Herald read when they came in (post-fit.ts), and by the
 *   connectors and media checks that see the file when the post goes out.
 *
 * Values come from /work/shared/NETWORKS.md (collected 2026-11-22); its source is cited per row. Values it marks
 * "(unsure)" are marked so here too, and are the first to re-check when a network refuses a post.
 */

/** How a network counts the characters of a post. */
export type TextCounting =
  | 'code_points'
  | 'graphemes'
  | 'x_weighted'
  | 'utf8_bytes'
  | 'utf16_units'
  | 'emoji_utf8_bytes';

export type MediaKind = 'image' | 'gif' | 'video';

export interface MediaKindRule {
  maxCount: number;
  maxBytes?: number;
  minSeconds?: number;
  maxSeconds?: number;
  /** Width divided by height. */
  aspectRatio?: { min: number; max: number };
  maxPixels?: number;
  formats?: readonly string[];
}

export interface ChannelOptionRule {
  name: string;
  type: 'string' | 'boolean' | 'string[]' | { oneOf: readonly string[] };
  required: boolean;
  /** Counted in code points; for a string[] option, of each item. */
  maxLength?: number;
  /** Characters the network refuses in the option (YouTube's title: < and >). */
  forbiddenCharacters?: string;
  /** Says what the option is for, in words a person posting can act on. */
  description: string;
  /** For a oneOf option: the media a post must carry when the option takes a value (an Instagram reel is one video). */
  media?: Readonly<Record<string, { kinds: readonly MediaKind[]; maxItems: number; words: string }>>;
}

export interface NetworkCapabilities {
  /** The network's name as channels carry it. */
  name: string;
  displayName: string;
  text: {
    limit: number;
    counting: TextCounting;
    /** UTF-8 bytes, where the network caps those as well. */
    maxBytes?: number;
    /** Characters the network refuses in the text (YouTube's description: < and >). */
    forbiddenCharacters?: string;
    /** Who may set a higher limit than `limit` for a channel. */
    raisedBy?: 'instance' | 'account';
    /** The limit an account the network allows longer posts has (X Premium), where the network names one. */
    accountLimit?: number;
    /** The lower limit of a post with media, whose text then goes where less fits (a Telegram caption). */
    withMediaLimit?: number;
  };
  media: {
    /** Kinds the network takes; a GIF counts as an image where the network has no rule of its own for GIFs. */
    kinds: Partial<Record<MediaKind, MediaKindRule>>;
    /** Most items of all kinds together in one post. */
    maxItems: number;
    /** Whether one post may carry more than one kind (Instagram carousels may; an X post may not). */
    mixKinds: boolean;
    /** Whether a post must carry media at all (a YouTube post is a video). */
    required: boolean;
    /**
     * The kinds the network fetches itself from the post's URLs instead of taking the bytes from Herald (Meta's
     * containers, Pinterest's image pins, TikTok's photos): a file of Herald's library then needs a public BASE_URL.
     */
    pulledFromUrl?: readonly ('image' | 'video')[];
  };
  /** How a first comment is made: a comment, a reply (X), or not at all (then it is ignored). */
  firstComment: 'comment' | 'reply' | 'none';
  /**
   * Why a first comment is refused rather than ignored, for a network SPEC promises first comments on but that has
   * no way to make one, or one whose posts take no comments at all (Google Business Profile): a person asking for one
   * must learn it will not happen.
   */
  firstCommentRefused?: string;
  /** Whether a first comment's mediaUrl is sent. */
  commentMediaUrl: boolean;
  /**
   * A network whose posts have a title besides their text (Reddit): `channelOptions.title`, else the text's first
   * line (see titleAndBody), at most `limit` code points; `bodyless` names what leaves no room for a body: media, or
   * a channel option (Reddit's link), with which the post carries no text beyond its title.
   */
  title?: { limit: number; bodyless: { media: boolean; option?: string } };
  /** Whether the network takes threads: a post's parts published as a chain of replies (absent: it does not). */
  threads?: boolean;
  /** Titles and other per-network settings, given in a post's channelOptions. Options not listed pass through. */
  channelOptions: readonly ChannelOptionRule[];
  /** How the network takes a file sent in parts, where it sets rules for the parts (TikTok's FILE_UPLOAD). */
  chunkedUpload?: {
    /** Below this a file is sent whole, as one part. */
    minChunkBytes: number;
    maxChunkBytes: number;
    /** The last part takes the trailing bytes and may be larger than the others, up to this. */
    maxLastChunkBytes: number;
    maxChunks: number;
  };
  /** For a network that names no reset when it refuses for rate (TikTok): how long its sliding window is. */
  rateWindowMs?: number;
  /**
   * The counters live sync reads of a post, by Herald's names for them, as the network documents them: those that
   * are people engaging, those that are reach (impressions or views: the first a post has is its reach), and
   * whether the channel's audience (followers or subscribers) is read. Insights read nothing else.
   */
  counters?: { engagement: readonly string[]; reach: readonly string[]; audience: boolean };
}

const MB = 1024 * 1024;
const GB = 1024 * MB;

const NETWORKS: readonly NetworkCapabilities[] = [
  {
    // Herald's own, built-in network: generous limits and first comments (as replies, with media) so that every
    // publishing path can be exercised with no external account.
    name: 'sandbox',
    displayName: 'Sandbox',
    counters: { engagement: ['likes', 'comments', 'shares'], reach: ['impressions'], audience: true },
    text: { limit: 5000, counting: 'code_points' },
    media: {
      kinds: { image: { maxCount: 10 }, video: { maxCount: 1 } },
      maxItems: 11,
      mixKinds: true,
      required: false,
    },
    firstComment: 'reply',
    commentMediaUrl: true,
    threads: true,
    channelOptions: [],
  },
  {
    // [XD counting-characters], [XD media-upload-chunked], [PZ/x]: 280 weighted (URLs 23, CJK and emoji 2), 25,000
    // for Premium subscribers (unsure which other tiers); 4 images <= 5 MB, or 1 GIF <= 15 MB, or 1 video <= 512 MB of
    // 0.5-140 s; alt text <= 1,000 characters; a first comment is a reply. Media segments may be up to 5 MB; Herald
    // sends 1 MB ones, as X's guide does, so a broken connection costs little.
    name: 'x',
    displayName: 'X',
    counters: {
      engagement: ['likes', 'reposts', 'replies', 'quotes', 'bookmarks'],
      reach: ['impressions'],
      audience: true,
    },
    text: { limit: 280, counting: 'x_weighted', raisedBy: 'account', accountLimit: 25_000 },
    media: {
      kinds: {
        image: { maxCount: 4, maxBytes: 5 * MB },
        gif: { maxCount: 1, maxBytes: 15 * MB },
        video: { maxCount: 1, maxBytes: 512 * MB, minSeconds: 0.5, maxSeconds: 140 },
      },
      maxItems: 4,
      mixKinds: false,
      required: false,
    },
    firstComment: 'reply',
    commentMediaUrl: false,
    threads: true,
    channelOptions: [
      {
        name: 'altText',
        type: 'string[]',
        required: false,
        maxLength: 1000,
        description:
          "the images' descriptions for people who cannot see them, in the order of the images (X takes 1,000 " +
          'characters each)',
      },
    ],
    chunkedUpload: { minChunkBytes: 1, maxChunkBytes: 1 * MB, maxLastChunkBytes: 1 * MB, maxChunks: 1000 },
  },
  {
    // [AT lexicons], bsky rate-limits and post-richtext docs: 300 graphemes and 3,000 bytes; 4 images <= 2 MB
    // (was 1 MB) or 1 video <= 100 MB (the embed lexicon's cap; the video service takes it). A first comment is a
    // reply.
    name: 'bluesky',
    displayName: 'Bluesky',
    counters: { engagement: ['likes', 'reposts', 'replies', 'quotes'], reach: [], audience: true },
    text: { limit: 300, counting: 'graphemes', maxBytes: 3000 },
    media: {
      kinds: { image: { maxCount: 4, maxBytes: 2 * MB }, video: { maxCount: 1, maxBytes: 100_000_000 } },
      maxItems: 4,
      mixKinds: false,
      required: false,
    },
    firstComment: 'reply',
    commentMediaUrl: false,
    threads: true,
    channelOptions: [
      {
        name: 'altText',
        type: 'string[]',
        required: false,
        description: "the images' descriptions for people who cannot see them, in the order of the images",
      },
      {
        name: 'langs',
        type: 'string[]',
        required: false,
        description: 'the languages of the post (BCP 47, e.g. en, de)',
      },
    ],
  },
  {
    // [MD methods/statuses.md, methods/media.md, api/rate-limits.md]: the instance's
    // configuration.statuses.max_characters (default 500) and max_media_attachments (4). Mastodon counts a link as
    // 23; Herald counts its code points, which is stricter for long links only. A first comment is a reply.
    name: 'mastodon',
    displayName: 'Mastodon',
    counters: { engagement: ['likes', 'reblogs', 'replies'], reach: [], audience: true },
    text: { limit: 500, counting: 'code_points', raisedBy: 'instance' },
    media: { kinds: { image: { maxCount: 4 }, video: { maxCount: 1 } }, maxItems: 4, mixKinds: false, required: false },
    firstComment: 'reply',
    commentMediaUrl: false,
    threads: true,
    channelOptions: [
      {
        name: 'visibility',
        type: { oneOf: ['public', 'unlisted', 'private', 'direct'] },
        required: false,
        description: 'who sees the post (public when left out)',
      },
      {
        name: 'spoilerText',
        type: 'string',
        required: false,
        maxLength: 500,
        description: 'a content warning shown before the post',
      },
      { name: 'sensitive', type: 'boolean', required: false, description: 'hides the media behind a warning' },
      {
        name: 'language',
        type: 'string',
        required: false,
        maxLength: 16,
        description: 'the language of the post (ISO 639, e.g. en)',
      },
      {
        name: 'altText',
        type: 'string[]',
        required: false,
        description: 'the media descriptions, in the order of the media',
      },
    ],
  },
  {
    // [PZ/linkedin], LinkedIn's multiimage-post-api: 3,000 characters; images under 36,152,320 pixels, one as media or
    // 2 to 20 as a multi-image post; video MP4 3 s-30 min, <= 500 MB (unsure), alone. A first comment may carry an
    // image.
    name: 'linkedin',
    displayName: 'LinkedIn',
    counters: { engagement: ['likes', 'comments', 'shares', 'clicks'], reach: ['impressions'], audience: true },
    text: { limit: 3000, counting: 'code_points' },
    media: {
      kinds: {
        image: { maxCount: 20, maxPixels: 36_152_320 },
        video: { maxCount: 1, maxBytes: 500 * MB, minSeconds: 3, maxSeconds: 30 * 60, formats: ['mp4'] },
      },
      maxItems: 20,
      mixKinds: false,
      required: false,
    },
    firstComment: 'comment',
    commentMediaUrl: true,
    channelOptions: [
      {
        name: 'altText',
        type: 'string[]',
        required: false,
        description: "the images' descriptions for people who cannot see them, in the order of the images",
      },
    ],
  },
  {
    // [PZ/facebook]: 63,206 characters (unsure); photos < 4 MB, JPG or PNG, uploaded unpublished then attached to one
    // feed post. NETWORKS.md gives no photo count: 10 is kept from Herald's earlier table. One video by file_url,
    // which Meta's video API takes up to 1 GB and 20 minutes (larger ones need its resumable upload). A link is
    // shared with a text post only.
    name: 'facebook',
    displayName: 'Facebook',
    counters: {
      engagement: ['reactions', 'comments', 'shares'],
      reach: ['post_total_media_view_unique'],
      audience: true,
    },
    text: { limit: 63206, counting: 'code_points' },
    media: {
      kinds: {
        image: { maxCount: 10, maxBytes: 4 * MB, formats: ['jpeg', 'png'] },
        video: { maxCount: 1, maxBytes: 1 * GB, maxSeconds: 20 * 60 },
      },
      maxItems: 10,
      mixKinds: false,
      required: false,
      pulledFromUrl: ['image', 'video'],
    },
    firstComment: 'comment',
    commentMediaUrl: true,
    channelOptions: [
      {
        name: 'link',
        type: 'string',
        required: false,
        description:
          'a URL shared with the post, shown as its preview card (text posts only, not with photos or a video)',
      },
    ],
  },
  {
    // [PZ/instagram], Meta ig-container: caption 2,200; JPEG <= 8 MB, aspect 4:5 to 1.91:1; carousels of up to 10
    // (images and videos together); Reels <= 15 min. Every post carries media.
    name: 'instagram',
    displayName: 'Instagram',
    counters: { engagement: ['likes', 'comments', 'saved', 'shares'], reach: ['views', 'reach'], audience: true },
    text: { limit: 2200, counting: 'code_points' },
    media: {
      kinds: {
        image: { maxCount: 10, maxBytes: 8 * MB, aspectRatio: { min: 4 / 5, max: 1.91 }, formats: ['jpeg'] },
        video: { maxCount: 10, maxSeconds: 15 * 60 },
      },
      maxItems: 10,
      mixKinds: true,
      required: true,
      pulledFromUrl: ['image', 'video'],
    },
    firstComment: 'comment',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'kind',
        type: { oneOf: ['feed', 'reels', 'story'] },
        required: false,
        description:
          'feed (default: an image, a video shared as a reel, or a carousel of 2 to 10), reels (one video) ' +
          'or story (one image or video; the text is not shown)',
        media: {
          reels: { kinds: ['video'], maxItems: 1, words: 'exactly one video' },
          story: { kinds: ['image', 'video'], maxItems: 1, words: 'one image or one video' },
        },
      },
      {
        name: 'shareToFeed',
        type: 'boolean',
        required: false,
        description: "whether a reel also appears in the account's feed (Instagram's default: yes)",
      },
    ],
  },
  {
    // Google resumable upload guide, videos.insert reference, youtube/v3/docs/videos (snippet.title,
    // snippet.description): one video per post; the post text is the description, at most 5,000 bytes (UTF-8, not
    // characters); the title (100 characters) is snippet.title; neither may contain < or >. publishAt schedules a
    // private video to go public.
    name: 'youtube',
    displayName: 'YouTube',
    counters: { engagement: ['likes', 'comments', 'favorites'], reach: ['views'], audience: true },
    text: { limit: 5000, counting: 'utf8_bytes', forbiddenCharacters: '<>' },
    media: { kinds: { video: { maxCount: 1 } }, maxItems: 1, mixKinds: false, required: true },
    firstComment: 'comment',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'title',
        type: 'string',
        required: true,
        maxLength: 100,
        forbiddenCharacters: '<>',
        description: 'the video title',
      },
      {
        name: 'privacyStatus',
        type: { oneOf: ['public', 'unlisted', 'private'] },
        required: false,
        description: 'who may watch the video',
      },
      { name: 'tags', type: 'string[]', required: false, description: 'the video tags' },
      { name: 'categoryId', type: 'string', required: false, description: "YouTube's category id" },
      {
        name: 'madeForKids',
        type: 'boolean',
        required: false,
        description: 'whether the video is made for children (status.selfDeclaredMadeForKids)',
      },
      {
        name: 'publishAt',
        type: 'string',
        required: false,
        description: 'an ISO 8601 time at which YouTube makes the video public; it is uploaded private until then',
      },
    ],
  },
  {
    // TikTok direct-post, content-upload, media-transfer, creator-info and rate-limit guides: caption (a video's
    // title) 2,200 "UTF-16 runes" (direct post reference: UTF-16 code units, so most emoji are 2), a photo post's
    // title 90 and description 4,000; one video <= 4 GB sent in chunks of
    // 5-64 MB (the last up to 128 MB, 1-1,000 chunks, a file under 5 MB whole), or up to 35 photos pulled from a
    // verified URL prefix, JPEG or WebP only (media transfer guide, image restrictions: Herald refuses a PNG rather
    // than converting it); a one-minute sliding window per endpoint, 429 without a reset.
    // SPEC lists TikTok among the first-comment networks, but TikTok has no comment API (NETWORKS.md found none;
    // the Content Posting API makes posts only): a first comment is refused, since ignoring it would drop it silently.
    name: 'tiktok',
    displayName: 'TikTok',
    counters: { engagement: ['likes', 'comments', 'shares'], reach: ['views'], audience: true },
    text: { limit: 2200, counting: 'utf16_units' },
    media: {
      kinds: { image: { maxCount: 35, formats: ['jpeg', 'webp'] }, video: { maxCount: 1, maxBytes: 4 * GB } },
      maxItems: 35,
      mixKinds: false,
      required: true,
      pulledFromUrl: ['image'],
    },
    firstComment: 'none',
    firstCommentRefused:
      'has no comment API, so Herald cannot make a first comment there; remove firstComment, ' +
      'or post the comment in the TikTok app.',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'title',
        type: 'string',
        required: false,
        maxLength: 90,
        description: 'the title of a photo post (the text is its description)',
      },
      {
        name: 'privacyLevel',
        type: { oneOf: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'] },
        required: true,
        description:
          "who may see the post, one of those the creator's account offers (unaudited apps may post SELF_ONLY only)",
      },
      { name: 'disableDuet', type: 'boolean', required: false, description: 'turn duets off' },
      { name: 'disableComment', type: 'boolean', required: false, description: 'turn comments off' },
      { name: 'disableStitch', type: 'boolean', required: false, description: 'turn stitches off' },
      {
        name: 'draft',
        type: 'boolean',
        required: false,
        description:
          "send the post to the creator's TikTok inbox as a draft to finish in the app, instead of posting it",
      },
    ],
    chunkedUpload: { minChunkBytes: 5 * MB, maxChunkBytes: 64 * MB, maxLastChunkBytes: 128 * MB, maxChunks: 1000 },
    rateWindowMs: 60_000,
  },
  {
    // [PZ/threads], Meta threads/posts (media specifications): 500 characters; TEXT, IMAGE, VIDEO or a CAROUSEL of
    // 2 to 20 mixing both; JPEG or PNG images <= 8 MB, aspect ratio up to 10:1; MOV or MP4 videos <= 1 GB and
    // 5 minutes. Replies exist, but SPEC names no first comments on Threads. The posts page (Limitations; `text` in
    // reference/publishing) counts emoji as their UTF-8 bytes, so 125 thumbs-up fill a post.
    name: 'threads',
    displayName: 'Threads',
    counters: { engagement: ['likes', 'replies', 'reposts', 'quotes', 'shares'], reach: ['views'], audience: true },
    text: { limit: 500, counting: 'emoji_utf8_bytes' },
    media: {
      kinds: {
        image: { maxCount: 20, maxBytes: 8 * MB, aspectRatio: { min: 1 / 10, max: 10 }, formats: ['jpeg', 'png'] },
        video: { maxCount: 20, maxBytes: 1 * GB, maxSeconds: 300, formats: ['mp4', 'mov'] },
      },
      maxItems: 20,
      mixKinds: true,
      required: false,
      pulledFromUrl: ['image', 'video'],
    },
    firstComment: 'none',
    commentMediaUrl: false,
    threads: true,
    channelOptions: [],
  },
  {
    // [PZ/pinterest], Pinterest's API v5 description (pinterest/api-description v5/openapi.yaml: PinCreate, media,
    // boards/list_pins): a Pin is one image (pulled by Pinterest from its URL) or one video (uploaded through
    // /v5/media) on a board; the text is its description (800), with a title (100), alt text (500) and a link (2,048).
    // Image and video sizes and durations are not in the API description: 20 MB images, 2 GB videos of 4 s to 15 min
    // are from Pinterest's help pages (unsure).
    // Pinterest has no comment API (NETWORKS.md found none; v5 has no endpoint that writes one): a first comment is
    // refused, since ignoring it would drop it silently.
    name: 'pinterest',
    displayName: 'Pinterest',
    counters: {
      engagement: ['saves', 'pinClicks', 'outboundClicks', 'reactions', 'comments'],
      reach: ['impressions', 'views'],
      audience: true,
    },
    text: { limit: 800, counting: 'code_points' },
    media: {
      kinds: {
        image: { maxCount: 1, maxBytes: 20 * MB },
        video: { maxCount: 1, maxBytes: 2 * GB, minSeconds: 4, maxSeconds: 900 },
      },
      maxItems: 1,
      mixKinds: false,
      required: true,
      pulledFromUrl: ['image'],
    },
    firstComment: 'none',
    firstCommentRefused:
      'has no comment API, so Herald cannot make a first comment on a Pin; remove firstComment, ' +
      'or comment in the Pinterest app.',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'boardId',
        type: 'string',
        required: true,
        description: "the id of the board the Pin goes on (herald network check lists the account's boards)",
      },
      { name: 'title', type: 'string', required: false, maxLength: 100, description: 'the Pin title' },
      { name: 'link', type: 'string', required: false, maxLength: 2048, description: 'the link the Pin opens' },
      {
        name: 'altText',
        type: 'string',
        required: false,
        maxLength: 500,
        description: "the image's description for people who cannot see it",
      },
    ],
  },
  {
    // [WP] REST handbook, NETWORKS.md "Seven more networks": a self-hosted WordPress site, reached with an Application
    // Password. Core sets no length on a post; Herald keeps 100,000 characters so a runaway text is still refused
    // before it goes. One image, the post's featured image, and one video, a video block after the text (both
    // uploaded to /wp/v2/media; their size is the site's PHP upload_max_filesize, unknown here; a featured image
    // must be an image). The first line of the text is the title unless `title` is given. A first comment is a
    // WordPress comment.
    name: 'wordpress',
    displayName: 'WordPress',
    text: { limit: 100_000, counting: 'code_points' },
    media: {
      kinds: {
        image: { maxCount: 1, formats: ['jpeg', 'png', 'gif', 'webp'] },
        video: { maxCount: 1, formats: ['mp4', 'mov', 'webm'] },
      },
      maxItems: 2,
      mixKinds: true,
      required: false,
    },
    firstComment: 'comment',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'title',
        type: 'string',
        required: false,
        maxLength: 200,
        description: 'the post title (the first line of the text when left out)',
      },
      {
        name: 'category',
        type: 'string',
        required: false,
        maxLength: 200,
        description: 'the name or slug of a category the site already has',
      },
      {
        name: 'tags',
        type: 'string[]',
        required: false,
        maxLength: 200,
        description: "the post's tags by name; one the site does not have yet is made",
      },
      {
        name: 'publishAt',
        type: 'string',
        required: false,
        description: 'an ISO 8601 time at which WordPress itself publishes the post (sent as scheduled, status future)',
      },
      {
        name: 'altText',
        type: 'string[]',
        required: false,
        description: "the featured image's description for people who cannot see it",
      },
    ],
  },
  {
    // [N 01, 10, 92], NETWORKS.md "Seven more networks": a kind-1 note signed with the person's key and sent to
    // their relays. NIP-01 sets no length; relays set their own (NIP-11 max_content_length; strfry's default event
    // is 64 KiB): Herald keeps 60,000 characters (unsure). Media are URLs in the text with NIP-92 imeta tags, fetched
    // by readers' clients from the URL. A first comment is a NIP-10 reply.
    name: 'nostr',
    displayName: 'Nostr',
    text: { limit: 60_000, counting: 'code_points' },
    media: {
      kinds: { image: { maxCount: 10 }, video: { maxCount: 1 } },
      maxItems: 10,
      mixKinds: true,
      required: false,
      pulledFromUrl: ['image', 'video'],
    },
    firstComment: 'reply',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'altText',
        type: 'string[]',
        required: false,
        description: 'the media descriptions, in the order of the media (NIP-92 alt)',
      },
    ],
  },
  {
    // [TG] core.telegram.org/bots/api (sendMessage, sendPhoto, sendVideo, sendMediaGroup) and the Bot FAQ: text 4,096
    // and a caption 1,024 (counted in UTF-16 code units, as Telegram's entity offsets are; unsure); photos uploaded up
    // to 10 MB, other files 50 MB; an album of 2 to 10 photos and videos. A first comment is a reply.
    name: 'telegram',
    displayName: 'Telegram',
    // A bot reads no messages or views; a chat's members are getChatMemberCount, the channel's audience.
    counters: { engagement: [], reach: [], audience: true },
    text: { limit: 4096, counting: 'utf16_units', withMediaLimit: 1024 },
    media: {
      kinds: { image: { maxCount: 10, maxBytes: 10 * MB }, video: { maxCount: 10, maxBytes: 50 * MB } },
      maxItems: 10,
      mixKinds: true,
      required: false,
    },
    firstComment: 'reply',
    commentMediaUrl: false,
    channelOptions: [
      { name: 'silent', type: 'boolean', required: false, description: 'sends the message without a sound' },
    ],
  },
  {
    // [DD] resources/message (Create Message: content 2,000 characters, up to 10 files, nonce with enforce_nonce),
    // reference (uploading files: 10 MiB a file by default): a bot's message in a server's text channel; text is
    // counted in code points (unsure how Discord counts). Images and videos go up together as attachments. A first
    // comment is a reply.
    name: 'discord',
    displayName: 'Discord',
    // Reactions, no views; the server's approximate_member_count (GET /guilds/{id}?with_counts=true) is the audience.
    counters: { engagement: ['reactions'], reach: [], audience: true },
    text: { limit: 2000, counting: 'code_points' },
    media: {
      kinds: { image: { maxCount: 10, maxBytes: 10 * MB }, video: { maxCount: 10, maxBytes: 10 * MB } },
      maxItems: 10,
      mixKinds: true,
      required: false,
    },
    firstComment: 'reply',
    commentMediaUrl: false,
    channelOptions: [],
  },
  {
    // [SL] chat.postMessage (text cut at 40,000; a section block's text 3,000; up to 50 blocks; metadata),
    // files.getUploadURLExternal and files.completeUploadExternal, the image block's slack_file: a message in the
    // channel picked at install. Images are uploaded as Slack files and shown as image blocks below the text, which
    // is then a section block (3,000); 10 images is Herald's own cap (unsure what Slack allows). Slack shows no
    // uploaded video inside a message, so videos are refused. A first comment is a reply in the post's thread.
    name: 'slack',
    displayName: 'Slack',
    text: { limit: 40_000, counting: 'code_points', withMediaLimit: 3000 },
    media: { kinds: { image: { maxCount: 10 } }, maxItems: 10, mixKinds: false, required: false },
    firstComment: 'reply',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'altText',
        type: 'string[]',
        required: false,
        maxLength: 2000,
        description: "the images' descriptions for people who cannot see them, in the order of the images",
      },
    ],
  },
  {
    // [GBP] v4 accounts.locations.localPosts (LocalPost: summary, topicType, callToAction {actionType, url}, media
    // [{mediaFormat PHOTO, sourceUrl}]: "sourceUrl is the only supported data field"), NETWORKS.md "Seven more
    // networks": a STANDARD local post on one location. The summary's 1,500 is Google's refusal ("Must be at most
    // 1500 characters", unsure how it counts); one photo, which Google fetches from its URL itself (JPG or PNG,
    // 10 KB to 5 MB by Google's help for profile photos, unsure for posts); no video in posts. Google has no comments
    // on local posts: a first comment is refused when the post is written. Google reports no counter per post
    // (localPosts.reportInsights was retired in 2023; the Performance API counts per location only).
    name: 'google_business',
    displayName: 'Google Business Profile',
    counters: { engagement: [], reach: [], audience: false },
    text: { limit: 1500, counting: 'code_points' },
    media: {
      kinds: { image: { maxCount: 1, maxBytes: 5 * MB, formats: ['jpeg', 'png'] } },
      maxItems: 1,
      mixKinds: false,
      required: false,
      pulledFromUrl: ['image'],
    },
    firstComment: 'none',
    firstCommentRefused:
      'has no comments on local posts, so Herald cannot make a first comment there; ' +
      'remove firstComment for this channel.',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'callToAction',
        type: { oneOf: ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'] },
        required: false,
        description: "the post's button: CALL dials the profile's phone number, the others open callToActionUrl",
      },
      {
        name: 'callToActionUrl',
        type: 'string',
        required: false,
        maxLength: 2048,
        description: 'the https address the button opens (every button but CALL needs one)',
      },
      {
        name: 'languageCode',
        type: 'string',
        required: false,
        maxLength: 16,
        description: 'the language of the post (BCP 47, e.g. en or de-CH)',
      },
    ],
  },
  {
    // [RW] Reddit Data API wiki, [PRAW] models/reddit/subreddit.py (submit, submit_image, submit_gallery, media
    // asset upload), NETWORKS.md "Seven more networks": a submission to the subreddit the channel was connected to,
    // with a title (300) and either a body (self text, 40,000, unsure), a link, one image (kind=image) or a gallery
    // of 2 to 20 images (20 MB each, unsure); a link or an image post has no body. Reddit takes no video from Herald
    // (its video posts need a poster frame and a socket for the result). A first comment is a Reddit comment.
    name: 'reddit',
    displayName: 'Reddit',
    counters: { engagement: ['score', 'comments'], reach: [], audience: false },
    text: { limit: 40_000, counting: 'code_points' },
    title: { limit: 300, bodyless: { media: true, option: 'link' } },
    media: {
      kinds: { image: { maxCount: 20, maxBytes: 20 * MB, formats: ['jpeg', 'png', 'gif'] } },
      maxItems: 20,
      mixKinds: false,
      required: false,
    },
    firstComment: 'comment',
    commentMediaUrl: false,
    channelOptions: [
      {
        name: 'title',
        type: 'string',
        required: false,
        maxLength: 300,
        description: "the post's title (the first line of the text when left out, the rest then its body)",
      },
      {
        name: 'link',
        type: 'string',
        required: false,
        maxLength: 2048,
        description: 'a URL to share as a link post (which has a title and no body or images)',
      },
      {
        name: 'flairId',
        type: 'string',
        required: false,
        maxLength: 64,
        description: "the id of one of the subreddit's post flairs, where it asks for one",
      },
      { name: 'nsfw', type: 'boolean', required: false, description: 'marks the post NSFW' },
      { name: 'spoiler', type: 'boolean', required: false, description: 'marks the post a spoiler' },
    ],
  },
];

const ALIASES: Readonly<Record<string, string>> = { twitter: 'x' };

/**
 * A titled network's title and body (see NetworkCapabilities.title): the title option where given, the whole text
 * then the body; else the text's first line, the lines after it the body.
 */
export function titleAndBody(text: string, titleOption: unknown): { title: string; body: string } {
  if (typeof titleOption === 'string' && titleOption.trim()) return { title: titleOption.trim(), body: text.trim() };
  const [first = '', ...rest] = text.trim().split('\n');
  return { title: first.trim(), body: rest.join('\n').trim() };
}

/** Every network Herald knows, by name. */
export const NETWORK_CAPABILITIES: Readonly<Record<string, NetworkCapabilities>> = Object.fromEntries(
  NETWORKS.map((n) => [n.name, n]),
);

const NETWORK_NAMES: readonly string[] = NETWORKS.map((n) => n.name);

/** Names a person may write for a network: the networks' own and their aliases. */
export const NETWORK_NAMES_AND_ALIASES: readonly string[] = [...NETWORK_NAMES, ...Object.keys(ALIASES)];

/** The network's capabilities, or undefined when Herald has no connector for it. */
export function findCapabilities(network: string): NetworkCapabilities | undefined {
  const name = network.toLowerCase();
  return NETWORK_CAPABILITIES[ALIASES[name] ?? name];
}

export function unknownNetworkMessage(network: string): string {
  return `Herald has no connector for network "${network}"; it publishes to ${NETWORK_NAMES.join(', ')}.`;
}

/** The network's capabilities; a network Herald has no connector for is refused, naming the ones it has. */
export function capabilitiesOf(network: string, path = 'network'): NetworkCapabilities {
  const found = findCapabilities(network);
  if (!found)
    throw new ValidationError(unknownNetworkMessage(network), [
      { path, message: `Use one of: ${NETWORK_NAMES.join(', ')}.` },
    ]);
  return found;
}

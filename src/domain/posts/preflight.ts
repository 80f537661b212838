/**
 * The rehearsal of a scheduled post before its slot (PREFLIGHT_MINUTES ahead, run by publishing/preflight-step.ts,
 * and once more when a post at risk is claimed to go out, by publishing/publish-step.ts):
 * everything publishing will need is tried without publishing, so a person hears of a problem while it can still
 * be mended rather than after the slot.
 *
 * Rules kept here, checked in this order, the first that fails being the post's risk:
 * - the channel is connected (not needing a reconnect, not disconnected);
 * - the post still fits its network (the capabilities table, as when it goes out);
 * - the channel's credentials last past the slot: credentials that lapse before it are renewed now, through the
 *   connector's own refresh and the channel's vault; a network that refuses to renew them (or cannot) is a risk;
 * - the network's quota allows a post at the slot: a channel paused for rate (an X daily post cap spent) past the
 *   slot, or the network's own word where it tells (the connector's `readiness`: Instagram's and Threads' publishing
 *   limits, the YouTube project's units); a quota that comes back before the slot is no risk;
 * - every media file is still there, a direct file of a format the network takes, and a file of Herald's own
 *   library reachable by a network that pulls it from its URL (media/public-base-url.ts);
 * - every link in the text answers (HEAD, or GET where HEAD is refused, with a short timeout; through the SSRF
 *   guard only): a link that is gone (404, 410), failing (5xx) or unreachable is a risk; a link the guard refuses
 *   to fetch (a private address) is not Herald's to judge;
 * - what the network could not answer now (a timeout, a rate limit on the check itself) is no risk: a rehearsal
 *   never cries wolf.
 * Recording a rehearsal (recordRehearsal): the finding is written only if the post was not edited, claimed or
 * rehearsed again since it was taken (or, at claim time, only while the worker still holds it); a new or changed
 * risk writes `post.at_risk`, a risk that passes writes `post.risk_cleared`, each in the same transaction. A post's
 * risk is shown while it has yet to go out.
 */
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { PostRecord, PostRiskRecord } from '../../db/repositories/posts.js';
import type { RehearsalHold } from '../../db/repositories/publishing.js';
import type { DomainDeps } from '../deps.js';
import { recordPostEvent } from '../events/events.js';
import { unreachableLibraryMedia } from '../media/public-base-url.js';
import { NetworkError, type ConnectorChannel, type NetworkConnector } from '../networks/connector.js';
import { formatProblem, validatePost } from '../networks/post-fit.js';
import { OutboundRequestError } from '../outbound.js';

/** What is wrong, and what a person can do about it, in their words. */
export interface PostRisk {
  reason: string;
  advice: string;
}

/** Herald's media check (publishing/media-check.ts): its own library from storage, any other URL through the guard. */
export type MediaLookup = (url: string, accountId: string) => Promise<MediaFound>;
type MediaFound = { direct: true; mimeType?: string } | { direct: false; reason: string };

export interface Rehearsal {
  post: PostRecord;
  channel: ChannelRecord;
  connector: NetworkConnector;
  target: ConnectorChannel;
  checkMedia: MediaLookup;
}

const LINK_TIMEOUT_MS = 5_000;
const LINKS_CHECKED = 5;
const LINK_PATTERN = /\bhttps?:\/\/[^\s<>"]+/gi;

export async function rehearse(deps: DomainDeps, r: Rehearsal): Promise<PostRisk | null> {
  const steps = [connected, fits, credentials, quota, media, links];
  for (const step of steps) {
    const risk = await step(deps, r);
    if (risk) return risk;
  }
  return null;
}

function slotOf(post: PostRecord): string {
  if (post.dateTime === null) return 'its time';
  return `${new Date(post.dateTime).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function nameOf(r: Rehearsal): string {
  return `${r.connector.capabilities.displayName} channel ${r.channel.handle}`;
}

async function connected(_deps: DomainDeps, r: Rehearsal): Promise<PostRisk | null> {
  if (r.channel.status === 'disconnected') {
    return {
      reason: `The ${nameOf(r)} was disconnected.`,
      advice: 'Connect the channel again, or move the post to another channel.',
    };
  }
  if (r.channel.status !== 'needs_reconnect') return null;
  return {
    reason: `The ${nameOf(r)} needs reconnecting (${r.channel.statusReason ?? 'the network refused its credentials'}).`,
    advice: `Reconnect the channel on the Channels page before ${slotOf(r.post)}.`,
  };
}

async function fits(_deps: DomainDeps, r: Rehearsal): Promise<PostRisk | null> {
  const textLimit = r.channel.textLimit ?? undefined;
  const issues = validatePost(r.connector.capabilities, r.post, { requireOptions: true, textLimit });
  if (issues.length === 0) return null;
  return {
    reason: issues.map((i) => i.message).join(' '),
    advice: 'Edit the post so it fits the network before it goes out.',
  };
}

function reconnect(r: Rehearsal, error: NetworkError): PostRisk {
  return {
    reason: `${r.connector.capabilities.displayName} would not renew the channel's connection: ${error.message}.`,
    advice: `Reconnect the ${nameOf(r)} on the Channels page before ${slotOf(r.post)}.`,
  };
}

async function credentials(_deps: DomainDeps, r: Rehearsal): Promise<PostRisk | null> {
  const slot = r.post.dateTime ?? 0;
  let expiresAt: number | null;
  try {
    ({ expiresAt } = await r.target.vault.read());
  } catch (error) {
    // Channels an operator adds (the sandbox's) hold none; a connected channel's status was judged already.
    if (error instanceof NetworkError) return null;
    throw error;
  }
  if (expiresAt === null || expiresAt > slot) return null;
  const renewable = r.connector.refresh && (!r.connector.renewable || (await r.connector.renewable(r.target)));
  if (!renewable) {
    return {
      reason:
        `The channel's connection to ${r.connector.capabilities.displayName} expires at ` +
        `${new Date(expiresAt).toISOString()}, before the post's time, and cannot be renewed without you.`,
      advice: `Reconnect the ${nameOf(r)} on the Channels page before ${slotOf(r.post)}.`,
    };
  }
  try {
    await r.connector.refresh!(r.target);
    return null;
  } catch (error) {
    if (error instanceof NetworkError && error.kind === 'reconnect_needed') return reconnect(r, error);
    if (error instanceof NetworkError) return null;
    throw error;
  }
}

async function quota(_deps: DomainDeps, r: Rehearsal): Promise<PostRisk | null> {
  const slot = r.post.dateTime ?? 0;
  const network = r.connector.capabilities.displayName;
  const paused = r.channel.rateLimitedUntil;
  if (paused && paused > slot) {
    const until = new Date(paused).toISOString();
    return {
      reason:
        `${network} has asked Herald to wait until ${until} before posting on this channel again: ` +
        'its posting limit is spent.',
      advice: `Leave the post to go out at ${until}, later than planned, or move it to after then.`,
    };
  }
  if (!r.connector.readiness) return null;
  try {
    const { quotaSpent } = await r.connector.readiness(r.target);
    if (!quotaSpent || (quotaSpent.until !== null && quotaSpent.until <= slot)) return null;
    const after =
      quotaSpent.until === null ? 'once the network allows it again' : `at ${new Date(quotaSpent.until).toISOString()}`;
    return {
      reason: `${quotaSpent.message}.`,
      advice: `Leave the post to go out ${after}, later than planned, or move it to a later time.`,
    };
  } catch (error) {
    if (error instanceof NetworkError && error.kind === 'reconnect_needed') return reconnect(r, error);
    if (error instanceof NetworkError) return null;
    throw error;
  }
}

async function media(deps: DomainDeps, r: Rehearsal): Promise<PostRisk | null> {
  const { post, connector } = r;
  const replace = 'Replace the file in the post, or put it back at its address, before it goes out.';
  const unreachable = unreachableLibraryMedia(deps.config.baseUrl, connector.capabilities, post);
  if (unreachable) {
    return {
      reason: unreachable.message,
      advice: 'Set BASE_URL to a public https address, or use media at a public URL.',
    };
  }
  const files = [
    ...post.imageUrls.map((url, i) => ({ url, video: false, path: `imageUrls[${i}]` })),
    ...post.videoUrls.map((url, i) => ({ url, video: true, path: `videoUrls[${i}]` })),
  ];
  for (const { url, video, path } of files) {
    let check;
    try {
      check = await r.checkMedia(url, post.accountId);
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      return { reason: `${error.message}.`, advice: replace };
    }
    if (!check.direct) return { reason: check.reason, advice: replace };
    const gif = check.mimeType === 'image/gif' && connector.capabilities.media.kinds.gif;
    const kind = video ? 'video' : gif ? 'gif' : 'image';
    const refusal = check.mimeType && formatProblem(connector.capabilities, kind, check.mimeType, path);
    if (refusal) return { reason: refusal, advice: 'Replace the file with one of a format the network takes.' };
  }
  return null;
}

/** The links in a post's text, without the punctuation that ends a sentence around them. */
function linksIn(text: string): string[] {
  const found = (text.match(LINK_PATTERN) ?? []).map((link) => link.replace(/[.,;:!?)\]}'»]+$/, ''));
  return [...new Set(found)].slice(0, LINKS_CHECKED);
}

async function links(deps: DomainDeps, r: Rehearsal): Promise<PostRisk | null> {
  for (const link of linksIn(r.post.text)) {
    const why = await deadLink(deps, link);
    if (why) return { reason: `The link ${link} ${why}.`, advice: 'Fix or remove the link before the post goes out.' };
  }
  return null;
}

/** Why a link does not answer, or null when it does (or cannot be judged). */
async function deadLink(deps: DomainDeps, url: string): Promise<string | null> {
  const options = { allowHosts: deps.config.outboundAllowHosts, timeoutMs: LINK_TIMEOUT_MS, maxBytes: 64 * 1024 };
  try {
    let answer = await deps.fetcher.fetch(url, { ...options, method: 'HEAD' });
    // Some servers refuse HEAD they would answer as GET.
    if (answer.status === 405 || answer.status === 501 || answer.status === 403) {
      answer = await deps.fetcher.fetch(url, { ...options, stopAfterBytes: 1024 });
    }
    if (answer.status === 404 || answer.status === 410) return `is gone (HTTP ${answer.status})`;
    if (answer.status >= 500) return `fails (HTTP ${answer.status})`;
    return null;
  } catch (error) {
    if (!(error instanceof OutboundRequestError)) throw error;
    return error.reason === 'unreachable' ? `does not answer (${error.message})` : null;
  }
}

/**
 * Writes a rehearsal's finding for a post as it was taken (for its window, or claimed to publish), with its event;
 * nothing when the post changed or was lost since. Answers whether it was written.
 */
export async function recordRehearsal(
  deps: DomainDeps,
  taken: PostRecord,
  hold: RehearsalHold,
  risk: PostRisk | null,
): Promise<boolean> {
  const now = deps.now();
  const record: PostRiskRecord | null = risk && { ...risk, checkedAt: now };
  return deps.repos.inTransaction(async (repos) => {
    const written = await repos.publishing.recordRisk(taken.id, hold, record);
    if (!written) return false;
    if (record && taken.risk?.reason !== record.reason) {
      await recordPostEvent(repos, now, 'post.at_risk', written, { reason: record.reason, advice: record.advice });
    } else if (!record && taken.risk) {
      await recordPostEvent(repos, now, 'post.risk_cleared', written, { reason: taken.risk.reason });
    }
    return true;
  });
}

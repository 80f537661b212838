/**
 * A post's history as sentences, oldest first: who did what and when, in people's words ("Ana approved this
 * version", "Ana changed the text, which sent it back for approval"), never the fields and flags the server records.
 * A change and the decision it undid are one sentence; a published post ends with Herald publishing it.
 */
import type { components } from '../../../sdk/src/index.js';
import { networkName } from '../ui/network-name.js';
import { fieldWords } from '../ui/problems.js';
import { formatTime } from '../ui/time.js';

type Post = components['schemas']['Post'];
type PostEvent = components['schemas']['PostEvent'];

export interface HistoryNames {
  /** A person's name by user id; Herald itself when the id is null. */
  who: (userId: string | null) => string;
  /** A label's name by id. */
  label: (labelId: string) => string | undefined;
}

const SOURCES: Record<string, string> = {
  app: 'in the app',
  api: 'through an integration',
  mcp: 'with an AI assistant',
  bulk: 'in a bulk upload',
  recycle: 'as a new round of an earlier post',
};

/** Fields an update names that people do not think of apart from another one. */
const SAME_AS: Record<string, string> = {
  isScheduled: 'dateTime',
  isDraft: 'dateTime',
  addToQueue: 'dateTime',
  mediaIds: 'imageUrls',
};

function list(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

const CONTENT_KINDS = new Set(['created', 'queued', 'updated', 'recycled']);

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** What a voided decision did to the post, said after the change that voided it. */
function voided(details: Record<string, unknown>): string {
  if (details.approvalStatus === 'PENDING') return 'which sent it back for approval';
  return details.decision === 'REJECTED' ? 'which set aside the rejection' : 'which set aside the approval';
}

function sentence(event: PostEvent, next: PostEvent | undefined, latestVersion: unknown, names: HistoryNames): string {
  const d = event.details ?? {};
  const who = names.who(event.actorUserId);
  const at = text(d.dateTime);
  const when = at ? `, for ${formatTime(at)}` : '';
  const held = d.approvalStatus === 'PENDING' ? ', to wait for approval' : '';
  const source = SOURCES[String(d.source)] ? ` ${SOURCES[String(d.source)]}` : '';
  const decided = d.version === undefined || d.version === latestVersion ? 'this version' : 'an earlier version';
  switch (event.kind) {
    case 'created':
      if (text(d.copiedFrom)) return `${who} made this copy for another channel while changing the post`;
      return `${who} created this${source}${d.status === 'draft' ? ' as a draft' : when}${held}`;
    case 'queued':
      return `${who} added this to the queue${source}${when}${held}`;
    case 'updated': {
      const fields = Array.isArray(d.fields) ? d.fields.map(String) : [];
      const words = [...new Set(fields.map((f) => fieldWords(SAME_AS[f] ?? f)))];
      const change = `${who} changed the ${words.length ? list(words) : 'post'}`;
      const undone = next?.kind === 'decision_voided' && next.at === event.at ? `, ${voided(next.details ?? {})}` : '';
      return change + undone;
    }
    case 'decision_voided':
      return `A change ${voided(d).replace(/^which /, '')}`;
    case 'approved':
      return (
        `${who} approved ${decided}` + (d.publishesNow ? ', and as its time had passed it went out straight away' : '')
      );
    case 'rejected':
      return `${who} rejected ${decided}${text(d.reason) ? `: “${text(d.reason)}”` : ''}`;
    case 'assigned':
      return `${who} asked ${names.who(text(d.reviewerUserId) ?? null)} to review it`;
    case 'labelled':
    case 'unlabelled': {
      const ids = Array.isArray(d.labelIds) ? d.labelIds.map(String) : [];
      const labels = ids.map((id) => names.label(id)).map((n) => (n ? `“${n}”` : 'a label since deleted'));
      const verb = event.kind === 'labelled' ? 'added the label' : 'took off the label';
      return `${who} ${verb}${labels.length > 1 ? 's' : ''} ${list(labels)}`;
    }
    case 'recycled':
      return text(d.copy)
        ? `${who} recycled it: a copy goes out again`
        : `${who} made this as a new round of an earlier post${when}`;
    case 'queue_moved':
      return d.reason === 'resumed'
        ? `${who} moved it to ${formatTime(text(d.to))} when the queue resumed`
        : `${who} moved it in the queue, to ${formatTime(text(d.to))}`;
    case 'queue_cleared':
      return `${who} cleared the queue, which removed it`;
    case 'deleted':
      return `${who} deleted it`;
    default:
      return `${who} changed it`;
  }
}

export function PostHistory(props: { post: Post; history: PostEvent[]; names: HistoryNames; network?: string }) {
  const { post, history, names } = props;
  const latestVersion = [...history].reverse().find((e) => CONTENT_KINDS.has(e.kind) && e.details?.version)
    ?.details?.version;
  // A voided decision is said with the change that voided it.
  const shown = history.flatMap((event, i) => {
    const before = history[i - 1];
    if (event.kind === 'decision_voided' && before?.kind === 'updated' && before.at === event.at) return [];
    const words = sentence(event, history[i + 1], latestVersion, names);
    return [{ at: event.at, words: words.charAt(0).toUpperCase() + words.slice(1) }];
  });
  const network = props.network ? networkName(props.network) : undefined;
  if (post.status === 'published' && post.publishedAt) {
    shown.push({ at: post.publishedAt, words: `Herald published it${network ? ` on ${network}` : ''}` });
  }
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ol id="history" class="history">
        {shown.map((entry, i) => (
          <li key={i}>
            <span class="what">{entry.words}.</span>{' '}
            <time class="muted" dateTime={entry.at}>
              {formatTime(entry.at)}
            </time>
          </li>
        ))}
      </ol>
    </section>
  );
}

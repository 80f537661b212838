/**
 * One post: its status, text, images (with their alt text) and videos, a preview on its channel beside those of the
 * posts made with it on theirs (the composer's own preview cards: each network's count and cut, media, thread and
 * first comment), the error in words with what to do next,
 * a warning with what to do when the rehearsal before its time found it at risk, its address on the network,
 * metrics and their curve over time, every publishing attempt and the history of who changed what. What a person
 * can do depends on its state:
 * edit, reschedule or delete one not yet published (a published or live post is read only), duplicate any into
 * the composer, try a failed post again, mark an unconfirmed one as published or not after checking the network,
 * and (for reviewers) approve, reject with a reason, or assign a held post. While the post is on its way out,
 * the page asks for it every few seconds, so it shows published (or failed) without a reload.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { api, ApiError, call, toApiError } from '../api.js';
import { Link, navigate } from '../router.js';
import { useMe } from '../session.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FieldProblems, Loading, Page, Problem, StatusBadge } from '../ui/page.js';
import { EDITABLE } from '../ui/post-state.js';
import { networkName } from '../ui/network-name.js';
import { browserTimeZone, formatTime, toInstant, toWallClock, zoneInWords } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import { PreviewCard, type NetworkRow } from './compose/preview.js';
import { libraryOf, mediaOf } from './compose/post-files.js';
import type { ChosenMedia } from './compose/media-field.js';
import { PostCurve } from './post-curve.js';
import { PostHistory } from './post-history.js';
import './post-and-calendar.css';
import './post-media.css';

type Post = components['schemas']['Post'];
type Channel = components['schemas']['Channel'];
type PostEvent = components['schemas']['PostEvent'];
type Preview = { post: Post; channel: Channel; row: NetworkRow; media: ChosenMedia[] };

async function load(postId: string) {
  const path = { postId };
  const [post, channels] = await Promise.all([
    call(api.GET('/posts/{postId}', { params: { path } })),
    call(api.GET('/channels')),
  ]);
  const isLive = post.data.isLivePost;
  const [history, members, labels, group, networks] = await Promise.all([
    isLive
      ? Promise.resolve({ data: [] as PostEvent[] })
      : call(api.GET('/posts/{postId}/history', { params: { path } })),
    call(api.GET('/members')),
    call(api.GET('/labels')),
    isLive ? Promise.resolve({ data: [] as Post[] }) : call(api.GET('/posts/{postId}/group', { params: { path } })),
    call(api.GET('/networks')),
  ]);
  const rows = new Map(networks.data.map((n) => [n.name, n.capabilities]));
  const withFiles = group.data.some((p) => p.imageUrls.length + p.videoUrls.length > 0);
  const library = withFiles ? await libraryOf() : new Map();
  const previews: Preview[] = [];
  for (const p of group.data) {
    const channel = channels.data.find((c) => c.id === p.channelId);
    const row = channel && rows.get(channel.network);
    if (channel && row) previews.push({ post: p, channel, row, media: await mediaOf(p, library) });
  }
  return {
    post: post.data,
    channel: channels.data.find((c) => c.id === post.data.channelId),
    history: history.data,
    members: members.data,
    labels: labels.data,
    previews,
  };
}

/** What to do about a post in this state, beside the error Herald recorded. */
function nextStep(post: Post, channel: Channel | undefined): string | undefined {
  if (channel?.status === 'needs_reconnect')
    return `Reconnect ${channel.displayName ?? channel.name} on the Channels page first: until then its posts fail.`;
  if (post.status === 'failed')
    return (
      'Fix what the error names (edit the post if it is the text or media), then try again now, or give it a ' +
      'new time.'
    );
  if (post.status === 'unconfirmed')
    return (
      'Herald could not tell whether the network took it. Look for it on the network, then tell Herald below; ' +
      'it will not try again by itself, so nothing is posted twice.'
    );
  if (post.approvalStatus === 'PENDING') return 'It waits for a reviewer to approve it before it can be published.';
  if (post.approvalStatus === 'REJECTED')
    return 'A reviewer rejected it. Edit it and schedule it again to ask once more.';
  return undefined;
}

/** How often a post on its way out is asked for again, and how soon before its time that starts. */
const POLL_MS = 4_000;
const POLL_AHEAD_MS = 2 * 60_000;

/** Asks for the post while it may change by itself (scheduled and due, or publishing); a change reloads the page. */
/** A file's name from its address, as a person recognises it. */
function fileName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  } catch {
    return url;
  }
}

function useLiveStatus(post: Post | undefined, reload: () => Promise<void>) {
  // A published post whose thread is still going out is on its way too, until each part has its link or its reason.
  const parts = post?.thread ?? [];
  const threadGoing =
    post?.status === 'published' && parts.some((part) => !part.permalinkUrl) && !parts.some((part) => part.error);
  const onItsWay =
    post !== undefined &&
    !post.isLivePost &&
    (post.status === 'scheduled' || post.status === 'publishing' || threadGoing);
  const id = post?.id;
  const partsOut = (p: Post) => (p.thread ?? []).filter((part) => part.permalinkUrl || part.error).length;
  const seen = post ? `${post.status}|${post.updatedAt}|${(post.attempts ?? []).length}|${partsOut(post)}` : '';
  useEffect(() => {
    if (!onItsWay || id === undefined) return;
    let stopped = false;
    const timer = setInterval(() => {
      const notYet =
        post.status === 'scheduled' && post.dateTime && Date.parse(post.dateTime) - Date.now() > POLL_AHEAD_MS;
      if (notYet) return;
      call(api.GET('/posts/{postId}', { params: { path: { postId: id } } }))
        .then((fresh) => {
          const now =
            `${fresh.data.status}|${fresh.data.updatedAt}|${(fresh.data.attempts ?? []).length}` +
            `|${partsOut(fresh.data)}`;
          if (!stopped && now !== seen) void reload();
        })
        // A missed look is tried again at the next tick; the page keeps what it shows.
        .catch(() => undefined);
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [onItsWay, id, seen]);
}

/** Fields the page shows a refusal beside; a refusal about only these is not repeated above. */
const SHOWN_BESIDE = ['permalinkUrl', 'reason', 'reviewerUserId', 'dateTime'];

const APPROVAL_WORDS: Record<string, string> = {
  PENDING: 'waiting for approval',
  APPROVED: 'approved',
  REJECTED: 'rejected',
};

/** The post's images, each with the alt text it goes out with, and its videos, each playable in place. */
function PostMedia(props: { post: Post }) {
  const { imageUrls, videoUrls, channelOptions } = props.post;
  if (imageUrls.length === 0 && videoUrls.length === 0) return null;
  const alt = channelOptions?.altText;
  const altTexts = Array.isArray(alt) ? alt.map(String) : typeof alt === 'string' ? [alt] : [];
  return (
    <section aria-labelledby="media-title" id="post-media">
      <h2 id="media-title">Media</h2>
      <ul class="post-media">
        {imageUrls.map((url, i) => (
          <li key={url}>
            <img src={url} alt={altTexts[i] ?? ''} width={120} height={120} />
            {altTexts[i] ? <small>Alt text: {altTexts[i]}</small> : <small class="muted">No alt text</small>}
          </li>
        ))}
        {videoUrls.map((url) => (
          <li key={url}>
            <video src={url} controls preload="metadata" width={240} />
            <a href={url} rel="noopener">
              Open the video
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The post on its channel, then each post made with it on its own, as each network will show it. */
function Previews(props: { previews: Preview[] }) {
  const [first, ...others] = props.previews;
  return (
    <section aria-labelledby="previews-title" id="post-previews">
      <h2 id="previews-title">{others.length > 0 ? 'Preview per channel' : 'Preview'}</h2>
      {others.length > 0 && (
        <p class="muted">This post on its channel, then the posts made with it, each with its own text, on theirs.</p>
      )}
      {props.previews.map(({ post, channel, row, media }) => (
        <div key={post.id} class="post-preview" data-post-id={post.id}>
          <PreviewCard
            channel={channel}
            row={row}
            text={post.text}
            media={media}
            firstComment={post.firstComment?.text ?? ''}
            thread={post.thread ?? []}
            channelOptions={post.channelOptions ?? undefined}
          />
          {post.id !== first.post.id && (
            <p class="muted">
              <Link href={`/app/posts/${encodeURIComponent(post.id)}`}>
                Open the post on {channel.displayName ?? channel.name}
              </Link>
            </p>
          )}
        </div>
      ))}
    </section>
  );
}

export function PostPage(props: { params: Record<string, string> }) {
  const postId = props.params.postId;
  const me = useMe();
  const { data, error, reload } = useApi(() => load(postId), [postId]);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string>();
  const [failure, setFailure] = useState<ApiError>();
  const [reason, setReason] = useState('');
  const [permalinkUrl, setPermalinkUrl] = useState('');
  const [reviewer, setReviewer] = useState('');
  const [newTime, setNewTime] = useState<string>();

  async function act(what: () => Promise<unknown>, said: string) {
    setBusy(true);
    setFailure(undefined);
    setDone(undefined);
    try {
      await what();
      await reload();
      setDone(said);
    } catch (caught) {
      setFailure(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  const path = { params: { path: { postId } } };
  const post = data?.post;
  const names = new Map((data?.members ?? []).map((m) => [m.userId, m.name || m.email]));
  const who = (userId: string | null) => (userId === null ? 'Herald' : (names.get(userId) ?? 'a former member'));
  const canReview = me?.reviews === true && post?.approvalStatus === 'PENDING';
  // The version on screen: a post its author changed meanwhile is not decided unseen (changed_since_read).
  const seen = post?.reviewVersion ? { version: post.reviewVersion } : {};
  const step = post && nextStep(post, data?.channel);
  useLiveStatus(post, reload);
  const editable = post !== undefined && !post.isLivePost && EDITABLE.has(post.status ?? '');
  const deletable = post !== undefined && !post.isLivePost && post.status !== 'publishing';
  const reschedulable = editable && (post.status === 'scheduled' || post.status === 'failed');
  const besideOnly =
    failure !== undefined &&
    failure.details.length > 0 &&
    failure.details.every((d) => SHOWN_BESIDE.some((f) => failure.problemsAt(f).includes(d.message)));
  const href = `/app/posts/${encodeURIComponent(postId)}`;

  function reschedule(event: Event) {
    event.preventDefault();
    const instant = toInstant(newTime ?? '', browserTimeZone);
    if ('problem' in instant) {
      setDone(undefined);
      const { message } = instant.problem;
      setFailure(new ApiError(400, 'invalid_request', message, [{ path: 'dateTime', message }]));
      return;
    }
    void act(
      async () => {
        await call(api.PATCH('/posts/{postId}', { ...path, body: { isScheduled: true, dateTime: instant.iso } }));
        setNewTime(undefined);
      },
      `Rescheduled for ${formatTime(instant.iso)}, ${zoneInWords(browserTimeZone, Date.parse(instant.iso))}.`,
    );
  }

  async function remove() {
    try {
      await call(api.DELETE('/posts/{postId}', path));
      navigate('/app');
    } catch (caught) {
      setFailure(toApiError(caught));
    }
  }

  return (
    <Page title="Post" actions={<Link href="/app">All posts</Link>}>
      <Problem error={error} />
      {!data && !error && <Loading label="Loading the post" rows={8} />}
      {post && (
        <>
          <p class="post-summary">
            <span id="post-status">
              <StatusBadge status={post.isLivePost ? 'live' : post.status} />
            </span>
            {post.approvalStatus && (
              <span class="approval">, {APPROVAL_WORDS[post.approvalStatus] ?? post.approvalStatus.toLowerCase()}</span>
            )}
            {' on '}
            {data.channel
              ? `${data.channel.displayName ?? data.channel.name} (${networkName(data.channel.network)})`
              : 'a channel no longer connected'}
            {post.dateTime && (
              <>
                , {post.status === 'published' || post.isLivePost ? 'published' : 'for'}{' '}
                <time dateTime={post.publishedAt ?? post.dateTime}>
                  {formatTime(post.publishedAt ?? post.dateTime)}
                </time>
              </>
            )}
          </p>
          <blockquote class="post-text">{post.text || '(no text)'}</blockquote>
          <PostMedia post={post} />
          {post.thread && post.thread.length > 0 && (
            <section aria-labelledby="thread-title" class="post-thread">
              <h2 id="thread-title">The thread</h2>
              <ol start={2}>
                {post.thread.map((part, i) => (
                  <li key={i} data-part={i + 2}>
                    <blockquote class="post-text">{part.text || '(no text)'}</blockquote>
                    {part.imageUrls.length + part.videoUrls.length > 0 && (
                      <p class="muted">
                        With {part.imageUrls.length + part.videoUrls.length} file(s):{' '}
                        {[...part.imageUrls, ...part.videoUrls].map((url) => (
                          <a key={url} href={url} rel="noreferrer">
                            {fileName(url)}{' '}
                          </a>
                        ))}
                      </p>
                    )}
                    {part.permalinkUrl && (
                      <p>
                        Part {i + 2} on the network:{' '}
                        <a href={part.permalinkUrl} rel="noreferrer">
                          {part.permalinkUrl}
                        </a>
                      </p>
                    )}
                    {part.error && <p class="problem">{part.error}</p>}
                    {!part.permalinkUrl && !part.error && post.status === 'published' && (
                      <p class="muted">Going out as a reply to part {i + 1}.</p>
                    )}
                  </li>
                ))}
              </ol>
            </section>
          )}
          {post.firstComment && (
            <p class="first-comment">
              First comment
              {post.firstComment.delayMinutes ? `, ${post.firstComment.delayMinutes} minutes after publishing` : ''}:
              {` ${post.firstComment.text}`}
            </p>
          )}
          {post.rejectionReason && <p>Rejected because: {post.rejectionReason}</p>}
          {data.previews.length > 0 && <Previews previews={data.previews} />}
          {post.risk && (
            <section aria-labelledby="at-risk-title" class="risk-box" id="post-risk" role="alert">
              <h2 id="at-risk-title">This post may not go out</h2>
              <p>{post.risk.reason}</p>
              <p>
                <strong>What to do:</strong> {post.risk.advice}
              </p>
              <small class="muted">
                Found by Herald's rehearsal at{' '}
                <time dateTime={post.risk.checkedAt}>{formatTime(post.risk.checkedAt)}</time>; it looks again until the
                post's time.
              </small>
            </section>
          )}
          {(post.error || step) && (
            <section aria-labelledby="what-happened" class={post.error ? 'error-box' : 'note-box'}>
              <h2 id="what-happened">{post.error ? 'What went wrong' : 'What happens next'}</h2>
              {post.error && (
                <p class="problem" id="post-error">
                  {post.error}
                </p>
              )}
              {step && <p id="next-step">{step}</p>}
            </section>
          )}
          {post.permalinkUrl && (
            <p>
              On the network:{' '}
              <a href={post.permalinkUrl} rel="noreferrer">
                {post.permalinkUrl}
              </a>
            </p>
          )}
          {post.metrics && Object.keys(post.metrics).length > 0 && (
            <section aria-labelledby="metrics-title">
              <h2 id="metrics-title">Metrics</h2>
              <dl class="metrics">
                {Object.entries(post.metrics).map(([name, value]) => (
                  <div key={name}>
                    <dt>{name}</dt>
                    <dd>{String(value)}</dd>
                  </div>
                ))}
              </dl>
            </section>
          )}
          {(post.isLivePost || post.status === 'published') && <PostCurve postId={post.id} />}

          <div aria-live="polite" class="outcome">
            {done && <p id="done">{done}</p>}
          </div>
          {!besideOnly && <Problem error={failure} />}

          <section aria-labelledby="change-title" id="post-actions">
            <h2 id="change-title">{editable ? 'Change it' : 'Post it again'}</h2>
            {!editable && !post.isLivePost && (
              <p class="muted">It is {post.status}, so it can no longer be changed; a copy can.</p>
            )}
            <p class="post-actions">
              {editable && (
                <Link class="button" href={`${href}/edit`}>
                  Edit
                </Link>
              )}
              <Link class="button" href={`/app/compose?from=${encodeURIComponent(postId)}`}>
                Duplicate
              </Link>
              {deletable && (
                <ConfirmButton
                  label="Delete"
                  ariaLabel="Delete this post"
                  confirmLabel="Yes, delete it"
                  onConfirm={remove}
                  question={
                    post.status === 'published'
                      ? 'Delete it from Herald? It stays on the network.'
                      : 'Delete this post? It will not go out.'
                  }
                />
              )}
            </p>
            {reschedulable && (
              <form id="reschedule" onSubmit={reschedule} noValidate>
                <label for="newTime">A new date and time, in your time zone: {zoneInWords(browserTimeZone)}</label>
                <input
                  id="newTime"
                  type="datetime-local"
                  value={newTime ?? (post.dateTime ? toWallClock(post.dateTime, browserTimeZone) : '')}
                  aria-describedby="newTime-problems"
                  onInput={(e) => setNewTime(e.currentTarget.value)}
                />
                <FieldProblems error={failure} field="dateTime" id="newTime-problems" />
                <p>
                  <button type="submit" disabled={busy}>
                    Reschedule
                  </button>
                </p>
              </form>
            )}
          </section>

          {post.status === 'failed' && !post.isLivePost && (
            <p>
              <button
                type="button"
                class="primary"
                disabled={busy}
                onClick={() => act(() => call(api.POST('/posts/{postId}/retry', path)), 'Back in line to publish now.')}
              >
                Try again now
              </button>
            </p>
          )}

          {post.status === 'unconfirmed' && (
            <section aria-labelledby="settle-title">
              <h2 id="settle-title">Did it go out?</h2>
              <p>Check the channel on the network, then tell Herald.</p>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(
                    () =>
                      call(
                        api.POST('/posts/{postId}/settle', {
                          ...path,
                          body: {
                            published: true,
                            ...(permalinkUrl.trim() ? { permalinkUrl: permalinkUrl.trim() } : {}),
                          },
                        }),
                      ),
                    'Marked as published.',
                  );
                }}
              >
                <label for="permalinkUrl">Its address on the network (optional)</label>
                <input
                  id="permalinkUrl"
                  type="url"
                  size={50}
                  value={permalinkUrl}
                  onInput={(e) => setPermalinkUrl(e.currentTarget.value)}
                  aria-describedby={failure?.problemsAt('permalinkUrl').length ? 'permalinkUrl-problems' : undefined}
                />
                <FieldProblems error={failure} field="permalinkUrl" id="permalinkUrl-problems" />
                <p>
                  <button type="submit" disabled={busy}>
                    Mark as published
                  </button>
                </p>
              </form>
              <p>
                <button
                  type="button"
                  disabled={busy}
                  onClick={() =>
                    act(
                      () => call(api.POST('/posts/{postId}/settle', { ...path, body: { published: false } })),
                      'Marked as not published.',
                    )
                  }
                >
                  Mark as not published
                </button>
              </p>
            </section>
          )}

          {canReview && (
            <section aria-labelledby="review-title">
              <h2 id="review-title">Review</h2>
              <p>
                <button
                  type="button"
                  class="primary"
                  disabled={busy}
                  onClick={() =>
                    act(() => call(api.POST('/posts/{postId}/approve', { ...path, body: seen })), 'Approved.')
                  }
                >
                  Approve
                </button>
              </p>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(
                    () => call(api.POST('/posts/{postId}/reject', { ...path, body: { reason, ...seen } })),
                    'Rejected.',
                  );
                }}
              >
                <label for="reason">Reason to reject</label>
                <input
                  id="reason"
                  required
                  value={reason}
                  onInput={(e) => setReason(e.currentTarget.value)}
                  aria-describedby={failure?.problemsAt('reason').length ? 'reason-problems' : undefined}
                />
                <FieldProblems error={failure} field="reason" id="reason-problems" />
                <button type="submit" disabled={busy}>
                  Reject
                </button>
              </form>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(
                    () => call(api.POST('/posts/{postId}/assign', { ...path, body: { reviewerUserId: reviewer } })),
                    `Assigned to ${who(reviewer)}.`,
                  );
                }}
              >
                <label for="reviewer">Reviewer</label>
                <select id="reviewer" required value={reviewer} onChange={(e) => setReviewer(e.currentTarget.value)}>
                  <option value="">Choose a member…</option>
                  {data.members.map((m) => (
                    <option key={m.userId} value={m.userId}>
                      {m.name || m.email}
                    </option>
                  ))}
                </select>
                <FieldProblems error={failure} field="reviewerUserId" id="reviewer-problems" />{' '}
                <button type="submit" disabled={busy}>
                  Assign
                </button>
                {post.reviewerUserId && <p class="muted">Assigned to {who(post.reviewerUserId)}.</p>}
              </form>
            </section>
          )}

          {(post.attempts ?? []).length > 0 && (
            <section aria-labelledby="attempts-title">
              <h2 id="attempts-title">Attempts</h2>
              <table id="attempts" class="stack">
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Error</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {(post.attempts ?? []).map((a) => (
                    <tr key={a.number}>
                      <td>{a.number}</td>
                      <td>{a.outcome ?? 'in flight'}</td>
                      <td>{a.error ?? ''}</td>
                      <td>
                        <time dateTime={a.startedAt}>{formatTime(a.startedAt)}</time>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}

          {data.history.length > 0 && (
            <PostHistory
              post={post}
              history={data.history}
              network={data.channel?.network}
              names={{ who, label: (id) => data.labels.find((l) => l.id === id)?.name }}
            />
          )}
        </>
      )}
    </Page>
  );
}

/**
 * The team's posts, newest first, with live posts from the networks among them; each opens its page. Posts that can
 * still change can be selected to delete, label or move together: each is done on its own, and the outcome of each
 * is listed once the list has been asked for again, so the two never disagree on screen.
 */
import { useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { api, call, toApiError } from '../api.js';
import { Link } from '../router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { Empty, Loading, Page, Problem, StatusBadge } from '../ui/page.js';
import { EDITABLE } from '../ui/post-state.js';
import { problemInPeoplesWords } from '../ui/problems.js';
import { browserTimeZone, formatTime, toInstant } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';

type Post = components['schemas']['Post'];

interface Outcome {
  postId: string;
  text: string;
  words: string;
}

async function load() {
  const [posts, channels, labels] = await Promise.all([
    call(api.GET('/posts', { params: { query: { livePosts: true, limit: 50 } } })),
    call(api.GET('/channels')),
    call(api.GET('/labels')),
  ]);
  return {
    posts: posts.data,
    names: new Map(channels.data.map((c) => [c.id, c.displayName ?? c.name])),
    labels: labels.data,
  };
}

const selectable = (p: Post) => !p.isLivePost && EDITABLE.has(p.status ?? '');
const shortText = (p: Post) => p.text.slice(0, 60) || '(no text)';
const postPage = (id: string) => `/app/posts/${encodeURIComponent(id)}`;

export function PostsPage() {
  const { data, error, reload } = useApi(load, []);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [labelId, setLabelId] = useState('');
  const [moveTo, setMoveTo] = useState('');
  const [moveProblem, setMoveProblem] = useState<string | undefined>(undefined);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [busy, setBusy] = useState(false);
  const chosen = (data?.posts ?? []).filter((p) => selected.has(p.id));

  function toggle(id: string, on: boolean) {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  }

  /** Does `act` to each chosen post in turn; one that is refused is reported and the others go on. */
  async function each(act: (p: Post) => Promise<unknown>, done: string) {
    setBusy(true);
    const results: Outcome[] = [];
    for (const p of chosen) {
      try {
        await act(p);
        results.push({ postId: p.id, text: shortText(p), words: done });
      } catch (caught) {
        results.push({ postId: p.id, text: shortText(p), words: problemInPeoplesWords(toApiError(caught)) });
      }
    }
    await reload();
    setOutcomes(results);
    setSelected(new Set());
    setBusy(false);
  }

  function move(event: Event) {
    event.preventDefault();
    const instant = toInstant(moveTo, browserTimeZone);
    if ('problem' in instant) return setMoveProblem(instant.problem.message);
    setMoveProblem(undefined);
    const body = { isScheduled: true, dateTime: instant.iso };
    void each(
      (p) => call(api.PATCH('/posts/{postId}', { params: { path: { postId: p.id } }, body })),
      `moved to ${formatTime(instant.iso)}`,
    );
  }

  const label = data?.labels.find((l) => l.id === labelId);
  return (
    <Page
      title="Posts"
      actions={
        <Link class="button" href="/app/compose">
          Compose a post
        </Link>
      }
    >
      <Problem error={error} />
      {!data && !error && <Loading label="Loading the posts" rows={6} />}
      {outcomes.length > 0 && (
        <section aria-labelledby="bulk-results-title" aria-live="polite">
          <h2 id="bulk-results-title">What was done</h2>
          <ul id="bulk-results">
            {outcomes.map((o) => (
              <li key={o.postId}>
                <Link href={postPage(o.postId)}>{o.text}</Link>: {o.words}
              </li>
            ))}
          </ul>
        </section>
      )}
      {data && data.posts.length === 0 && (
        <Empty>
          <p>
            No posts yet. <Link href="/app/compose">Write one</Link>, or connect a channel first on the Channels page.
          </p>
        </Empty>
      )}
      {data && chosen.length > 0 && (
        <section aria-labelledby="bulk-title" class="bulk-actions">
          <h2 id="bulk-title">
            {chosen.length === 1 ? 'With the selected post' : `With the ${chosen.length} selected posts`}
          </h2>
          <ConfirmButton
            label="Delete"
            ariaLabel="Delete the selected posts"
            question={
              chosen.length === 1
                ? 'Delete this post? It will not go out.'
                : `Delete these ${chosen.length} posts? They will not go out.`
            }
            confirmLabel="Yes, delete"
            onConfirm={() =>
              each((p) => call(api.DELETE('/posts/{postId}', { params: { path: { postId: p.id } } })), 'deleted')
            }
          />
          {data.labels.length > 0 && (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (!label) return;
                const body = { labelIds: [label.id] };
                void each(
                  (p) => call(api.POST('/posts/{postId}/labels', { params: { path: { postId: p.id } }, body })),
                  `labelled ${label.name}`,
                );
              }}
            >
              <label for="bulk-label">Label</label>
              <select id="bulk-label" value={labelId} onChange={(e) => setLabelId(e.currentTarget.value)}>
                <option value="">Choose a label</option>
                {data.labels.map((l) => (
                  <option key={l.id} value={l.id}>
                    {l.name}
                  </option>
                ))}
              </select>
              <button type="submit" disabled={busy || !label}>
                Add the label
              </button>
            </form>
          )}
          <form onSubmit={move} noValidate>
            <label for="bulk-move">Move to, in your time zone ({browserTimeZone})</label>
            <input
              id="bulk-move"
              type="datetime-local"
              value={moveTo}
              onInput={(e) => setMoveTo(e.currentTarget.value)}
              aria-describedby={moveProblem ? 'bulk-move-problem' : undefined}
            />
            {moveProblem && (
              <p id="bulk-move-problem" class="problem">
                {moveProblem}
              </p>
            )}
            <button type="submit" disabled={busy || moveTo === ''}>
              Move
            </button>
          </form>
        </section>
      )}
      {data && data.posts.length > 0 && (
        <table class="posts">
          <caption class="visually-hidden">The team's posts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Select</span>
              </th>
              <th scope="col">Status</th>
              <th scope="col">Post</th>
              <th scope="col">Channel</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {data.posts.map((p) => (
              <tr key={p.id}>
                <td>
                  {selectable(p) && (
                    <input
                      type="checkbox"
                      name="postIds"
                      value={p.id}
                      checked={selected.has(p.id)}
                      disabled={busy}
                      aria-label={`Select “${shortText(p)}”`}
                      onChange={(e) => toggle(p.id, e.currentTarget.checked)}
                    />
                  )}
                </td>
                <td>
                  <StatusBadge status={p.isLivePost ? 'live' : p.status} />
                </td>
                <td>
                  <Link href={postPage(p.id)}>{p.text.slice(0, 120) || '(no text)'}</Link>
                </td>
                <td>{data.names.get(p.channelId) ?? 'a channel no longer connected'}</td>
                <td>{formatTime(p.dateTime)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

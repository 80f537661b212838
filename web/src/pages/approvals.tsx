/**
 * The approvals inbox: the posts held for a reviewer, every one or only those assigned to me; approve or reject
 * them one at a time or the selected ones at once (POST /approvals/decisions), with a result per post, since one
 * that someone else decided meanwhile must not stop the others.
 */
import { useState } from 'preact/hooks';
import { api, call, type ApiError, toApiError } from '../api.js';
import { Link, navigate } from '../router.js';
import { useMe } from '../session.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { networkName } from '../ui/network-name.js';
import { inPeoplesWords } from '../ui/problems.js';
import { formatTime } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import './team-pages.css';

type AssignedTo = 'me' | 'anyone';

interface Outcome {
  postId: string;
  text: string;
  ok: boolean;
  message: string;
}

async function load(assignedTo: AssignedTo) {
  const [held, channels, members] = await Promise.all([
    call(api.GET('/approvals', { params: { query: { assignedTo, limit: 100 } } })),
    call(api.GET('/channels')),
    call(api.GET('/members')),
  ]);
  return {
    posts: held.data,
    channels: new Map(channels.data.map((c) => [c.id, `${c.displayName ?? c.name} (${networkName(c.network)})`])),
    people: new Map(members.data.map((m) => [m.userId, m.name || m.email])),
  };
}

export function ApprovalsPage(props: { query: URLSearchParams }) {
  const assignedTo: AssignedTo = props.query.get('assigned') === 'me' ? 'me' : 'anyone';
  const me = useMe();
  const { data, error, reload } = useApi(() => load(assignedTo), [assignedTo]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [reason, setReason] = useState('');
  const [refused, setRefused] = useState<ApiError | undefined>(undefined);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [busy, setBusy] = useState(false);

  const posts = data?.posts ?? [];
  const chosen = posts.filter((p) => selected.has(p.id));

  async function decide(decision: 'approve' | 'reject', postIds: string[]) {
    setBusy(true);
    setRefused(undefined);
    try {
      const texts = new Map(posts.map((p) => [p.id, p.text]));
      // The versions shown here: a post an author changes after this page read it is not decided unseen.
      const versions = Object.fromEntries(
        posts.flatMap((p) => (postIds.includes(p.id) && p.reviewVersion ? [[p.id, p.reviewVersion]] : [])),
      );
      const body = { postIds, decision, versions, ...(decision === 'reject' ? { reason } : {}) };
      const answer = await call(api.POST('/approvals/decisions', { body }));
      // The list is asked for again before the outcomes show, so the two never disagree on screen.
      await reload();
      setOutcomes(
        answer.results.map((r) => ({
          postId: r.id,
          text: texts.get(r.id) ?? '',
          ok: r.ok,
          message: r.ok
            ? decision === 'approve'
              ? 'approved'
              : 'rejected'
            : r.error?.code === 'changed_since_read'
              ? 'changed since this page showed it: read it again before deciding'
              : r.error
                ? inPeoplesWords(r.error.code, undefined, r.error.message)
                : 'not decided',
        })),
      );
      setSelected(new Set([...selected].filter((id) => !postIds.includes(id))));
      if (decision === 'reject') setReason('');
    } catch (caught) {
      setRefused(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  function toggle(id: string, on: boolean) {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  }

  return (
    <Page title="Approvals">
      <fieldset class="filter">
        <legend>Show the posts waiting for</legend>
        {(['anyone', 'me'] as const).map((value) => (
          <label class="inline" key={value}>
            <input
              type="radio"
              name="assigned"
              value={value}
              checked={assignedTo === value}
              onChange={() =>
                navigate(value === 'me' ? '/app/approvals?assigned=me' : '/app/approvals', { replace: true })
              }
            />
            {value === 'me' ? ' me (assigned to me)' : ' anyone (every held post)'}
          </label>
        ))}
      </fieldset>
      <div role="status" aria-live="polite">
        {outcomes.length > 0 && (
          <ul id="results" class="results">
            {outcomes.map((o) => (
              <li key={o.postId} class={o.ok ? 'ok' : 'problem'}>
                {o.text.slice(0, 80) || '(no text)'}: {o.message}
              </li>
            ))}
          </ul>
        )}
      </div>
      <Problem error={error} />
      {!data && !error && <Loading label="Loading the posts waiting for approval" rows={4} />}
      {data && posts.length === 0 && (
        <Empty>
          <p>
            Nothing is waiting for approval{assignedTo === 'me' ? ' that is assigned to you' : ''}.
            {assignedTo === 'me' ? (
              <>
                {' '}
                See <Link href="/app/approvals">every held post</Link>.
              </>
            ) : (
              <>
                {' '}
                Posts written in a workspace that requires approval arrive here; see the <Link href="/app">posts</Link>
                {' meanwhile.'}
              </>
            )}
          </p>
        </Empty>
      )}
      {data && posts.length > 0 && (
        <form onSubmit={(event) => event.preventDefault()}>
          <label class="inline select-all">
            <input
              type="checkbox"
              checked={chosen.length === posts.length}
              onChange={(event) => setSelected(new Set(event.currentTarget.checked ? posts.map((p) => p.id) : []))}
            />{' '}
            Select every post
          </label>
          <table class="approvals stack">
            <caption class="visually-hidden">Posts waiting for approval, soonest first</caption>
            <thead>
              <tr>
                <th scope="col">
                  <span class="visually-hidden">Selected</span>
                </th>
                <th scope="col">Post</th>
                <th scope="col">Channel</th>
                <th scope="col">When</th>
                <th scope="col">Reviewer</th>
                <th scope="col">Decide</th>
              </tr>
            </thead>
            <tbody>
              {posts.map((p) => {
                const name = p.text.slice(0, 60) || '(no text)';
                return (
                  <tr key={p.id}>
                    <td>
                      <input
                        type="checkbox"
                        name="postIds"
                        value={p.id}
                        aria-label={`Select “${name}”`}
                        checked={selected.has(p.id)}
                        onChange={(event) => toggle(p.id, event.currentTarget.checked)}
                      />
                    </td>
                    <td>
                      <Link href={`/app/posts/${encodeURIComponent(p.id)}`}>{p.text.slice(0, 120) || '(no text)'}</Link>
                    </td>
                    <td data-label="Channel">{data.channels.get(p.channelId) ?? 'a channel no longer connected'}</td>
                    <td data-label="When">{p.isDraft ? 'draft' : formatTime(p.dateTime)}</td>
                    <td data-label="Reviewer">
                      {p.reviewerUserId
                        ? p.reviewerUserId === me?.userId
                          ? 'you'
                          : (data.people.get(p.reviewerUserId) ?? 'someone')
                        : 'anyone'}
                    </td>
                    <td>
                      <button
                        type="button"
                        disabled={busy}
                        aria-label={`Approve “${name}”`}
                        onClick={() => decide('approve', [p.id])}
                      >
                        Approve
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <div class="decide">
            <p class="muted">
              {chosen.length} of {posts.length} selected.
            </p>
            <p>
              <button
                type="button"
                class="primary"
                disabled={busy || chosen.length === 0}
                onClick={() =>
                  decide(
                    'approve',
                    chosen.map((p) => p.id),
                  )
                }
              >
                Approve selected
              </button>
            </p>
            <label for="reason">Reason to reject (the writers see it)</label>
            <input
              id="reason"
              name="reason"
              value={reason}
              maxLength={2000}
              aria-describedby={refused?.problemsAt('reason').length ? 'reason-problems' : undefined}
              onInput={(event) => setReason(event.currentTarget.value)}
            />
            <FieldProblems error={refused} field="reason" id="reason-problems" />
            <p>
              <button
                type="button"
                disabled={busy || chosen.length === 0}
                onClick={() =>
                  decide(
                    'reject',
                    chosen.map((p) => p.id),
                  )
                }
              >
                Reject selected
              </button>
            </p>
            {refused && refused.problemsAt('reason').length === 0 && <Problem error={refused} />}
          </div>
        </form>
      )}
    </Page>
  );
}

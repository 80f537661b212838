/**
 * Compose: one text for several channels (each channel may have its own), media uploaded or from the library with
 * alt text, a thread (parts after the post, each its own text and counter, published as a chain of replies where the
 * network takes threads), a first comment, labels, the chosen networks' options, a preview per channel, and when:
 * now, at a time
 * in the person's zone, the queue, or a draft. The AI helpers change the text in place; nothing is saved until the
 * button, which names what it does ("Publish now", "Schedule"...), is pressed; it waits while a text is too long.
 * After saving, the composer names every post made, one per channel, with what happens to it and when.
 *
 * The same form edits one post (`/app/posts/:postId/edit`, saved with PATCH /posts/{postId}) and starts a copy of
 * one (`/app/compose?from=`, prefilled, nothing saved until the person saves). An edit can move the post to another
 * channel and add channels, each getting the edited post as a post of its own: PATCH `channelIds` names the whole
 * group's channels (GET /posts/{postId}/group), so the other posts of its group, which keep their own text, stay.
 * A post whose channel was disconnected says so, and moves by ticking another; after a move, Back goes to the post
 * the move made, since the one edited is gone.
 *
 * Saving is what REST offers an integration: POST /posts (which ignores channelOptions, SPEC), then PATCH each post
 * with the options (applied on update) and POST its labels. If the options are refused the posts just made are
 * deleted again, so saving once more does not leave copies behind; if a label is refused the posts stand, and the
 * composer says so beside the list of posts instead of offering a second save.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { countBy } from '../../../src/domain/networks/text-length.js';
import { api, ApiError, call, toApiError } from '../api.js';
import { Link, navigate, useLeaveGuard } from '../router.js';
import { useMe } from '../session.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { composeAt } from '../ui/compose-at.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { EDITABLE } from '../ui/post-state.js';
import { inPeoplesWords } from '../ui/problems.js';
import { browserTimeZone, formatTime, toInstant, toWallClock, zoneInWords } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import {
  BLANK,
  differs,
  forgetDraft,
  keepDraft,
  readDraft,
  type Draft,
  type ThreadPartDraft,
  type When,
} from './compose/draft-store.js';
import { MediaField, type ChosenMedia } from './compose/media-field.js';
import { mediaOf } from './compose/post-files.js';
import { Counter, PreviewCard, type Channel, type NetworkRow } from './compose/preview.js';
import { GoodTimes } from './compose/good-times.js';
import { ZonePicker } from './compose/zone-picker.js';
import './compose/compose.css';

type Label = components['schemas']['Label'];
type OptionRule = components['schemas']['ChannelOptionRule'];
type Post = components['schemas']['Post'];
type Timing = { isScheduled?: boolean; dateTime?: string; addToQueue?: boolean; saveAsDraft?: boolean };

/** The button says what pressing it does. */
const ACTION: Record<When, string> = {
  now: 'Publish now',
  schedule: 'Schedule',
  queue: 'Add to queue',
  draft: 'Save draft',
};

/** Fields the page shows problems beside; a problem about anything else is shown above the form. */
const FIELDS = [
  'channelIds',
  'text',
  'textByChannel',
  'thread',
  'mediaIds',
  'imageUrls',
  'videoUrls',
  'firstComment',
  'channelOptions',
  'dateTime',
  'timezone',
  'addToQueue',
  'prompt',
];

interface Basics {
  channels: Channel[];
  rows: Map<string, NetworkRow>;
  labels: Label[];
  /** The account's disconnected channels: no post goes to them, but a post left on one names it. */
  disconnected: Channel[];
}

async function loadBasics(): Promise<Basics> {
  const [channels, networks, labels] = await Promise.all([
    call(api.GET('/channels')),
    call(api.GET('/networks')),
    call(api.GET('/labels')),
  ]);
  return {
    channels: channels.data.filter((c) => c.status !== 'disconnected'),
    disconnected: channels.data.filter((c) => c.status === 'disconnected'),
    rows: new Map(networks.data.map((n) => [n.name, n.capabilities])),
    labels: labels.data,
  };
}

/** A post's fields in the form: its channel, text, files, comment, labels and options; `when` as given. */
async function draftOf(post: Post, basics: Basics, when: When, dateTime: string): Promise<Draft> {
  const options: Record<string, Record<string, string>> = {};
  const channel = basics.channels.find((c) => c.id === post.channelId);
  const rules = channel ? (basics.rows.get(channel.network)?.channelOptions ?? []) : [];
  for (const rule of rules) {
    const value = post.channelOptions?.[rule.name];
    if (rule.name === 'altText' || value === undefined || value === null || !channel) continue;
    const typed = Array.isArray(value) ? value.join(', ') : String(value);
    options[channel.network] = { ...options[channel.network], [rule.name]: typed };
  }
  return {
    chosenIds: channel ? [channel.id] : [],
    text: post.text,
    ownText: {},
    media: await mediaOf(post),
    firstComment: post.firstComment?.text ?? '',
    firstCommentDelay: post.firstComment?.delayMinutes,
    thread: (post.thread ?? []).map(({ text, imageUrls, videoUrls }) => ({ text, imageUrls, videoUrls })),
    labelIds: (post.labels ?? []).map((l) => l.id),
    options,
    when,
    dateTime,
    timeZone: '',
  };
}

/** How an edit starts: where the post is now (a time in the person's zone, its queue place, or a draft). */
function whenOf(post: Post): { when: When; dateTime: string } {
  const dateTime = post.dateTime ? toWallClock(post.dateTime, browserTimeZone) : '';
  if (post.status === 'draft') return { when: 'draft', dateTime };
  if (post.inQueue) return { when: 'queue', dateTime };
  return { when: 'schedule', dateTime };
}

export function ComposePage(props: { query: URLSearchParams }) {
  const from = props.query.get('from') ?? undefined;
  const me = useMe();
  const [round, setRound] = useState(0);
  const { data, error } = useApi(async () => {
    const basics = await loadBasics();
    // Opened from an empty day or hour of the calendar: scheduled for then, in the zone the calendar showed.
    const at = composeAt(props.query);
    if (!from) {
      return {
        basics,
        draft: at ? { ...BLANK, when: 'schedule' as const, ...at, timeZone: at.timeZone ?? '' } : BLANK,
      };
    }
    // A copy starts as a draft: nothing goes out until the person chooses when.
    const original = await call(api.GET('/posts/{postId}', { params: { path: { postId: from } } }));
    return { basics, draft: await draftOf(original.data, basics, 'draft', '') };
  }, [from]);
  const another = () => (from ? navigate('/app/compose') : setRound((n) => n + 1));
  // A new post starts from the person's kept draft (at the calendar's time, when it came from there); a copy from
  // its original, kept only once saved.
  const initial = (d: NonNullable<typeof data>, userId: string): Draft => {
    const kept = from
      ? undefined
      : readDraft(
          userId,
          d.basics.channels.map((c) => c.id),
        );
    if (!kept) return d.draft;
    const { when, dateTime, timeZone } = d.draft;
    return d.draft.when === 'schedule' ? { ...kept, when, dateTime, timeZone } : kept;
  };
  return (
    <Page title={from ? 'Duplicate a post' : 'Compose'}>
      <Problem error={error} />
      {(!data || !me) && !error && <Loading label="Loading your channels" rows={8} />}
      {data && data.basics.channels.length === 0 && (
        <Empty>
          <p>
            No channels to post to yet. Connect one on the <Link href="/app/channels">Channels page</Link>, then come
            back to write.
          </p>
        </Empty>
      )}
      {data && me && data.basics.channels.length > 0 && (
        <>
          {from && (
            <p class="note-box" id="copy-note">
              A copy of the post: change what you like, then save it as a new post. The original stays as it is.
            </p>
          )}
          <Composer
            key={round}
            {...data.basics}
            initial={initial(data, me.userId)}
            onAnother={another}
            keepFor={from ? undefined : me.userId}
            blank={data.draft}
            onDiscard={() => setRound((n) => n + 1)}
          />
        </>
      )}
    </Page>
  );
}

export function EditPostPage(props: { params: Record<string, string> }) {
  const postId = props.params.postId;
  const { data, error } = useApi(async () => {
    const path = { params: { path: { postId } } };
    const [basics, post, group] = await Promise.all([
      loadBasics(),
      call(api.GET('/posts/{postId}', path)),
      call(api.GET('/posts/{postId}/group', path)),
    ]);
    const start = whenOf(post.data);
    const others = group.data.filter((p) => p.id !== postId);
    return { basics, post: post.data, others, draft: await draftOf(post.data, basics, start.when, start.dateTime) };
  }, [postId]);
  // Once saved, the post is the one the edit left: a move deletes this one, so Back goes to its new post.
  const [moved, setMoved] = useState<{ from: string; to: string } | undefined>(undefined);
  const afterSave = (posts: Post[]) => {
    if (posts.length > 0 && !posts.some((p) => p.id === postId)) setMoved({ from: postId, to: posts[0].id });
  };
  const href = `/app/posts/${encodeURIComponent(moved?.from === postId ? moved.to : postId)}`;
  const editable = data && !data.post.isLivePost && EDITABLE.has(data.post.status ?? '');
  return (
    <Page title="Edit the post" actions={<Link href={href}>Back to the post</Link>}>
      <Problem error={error} />
      {!data && !error && <Loading label="Loading the post" rows={8} />}
      {data && !editable && (
        <Empty>
          <p>
            This post is {data.post.isLivePost ? 'live on the network' : data.post.status}: it can no longer be changed.{' '}
            <Link href={`/app/compose?from=${encodeURIComponent(postId)}`}>Duplicate it</Link> to post it again.
          </p>
        </Empty>
      )}
      {data && editable && (
        <Composer {...data.basics} initial={data.draft} edit={data.post} others={data.others} onEdited={afterSave} />
      )}
    </Page>
  );
}

/** What happens to a saved post and when, as a person says it. */
function whatHappens(post: Post): string {
  const at = post.dateTime
    ? `${formatTime(post.dateTime)} (${zoneInWords(browserTimeZone, Date.parse(post.dateTime))})`
    : '';
  if (post.status === 'draft') return 'saved as a draft: it does not go out until it is given a time.';
  if (post.approvalStatus === 'PENDING') {
    return `waits for a reviewer to approve it, then goes out${post.isScheduled && at ? ` on ${at}` : ''}.`;
  }
  if (post.inQueue) return `added to the queue: it goes out on ${at}.`;
  if (post.isScheduled) return `scheduled: it goes out on ${at}.`;
  return 'publishing now.';
}

function Saved(props: { posts: Post[]; channels: Channel[]; withoutLabels?: string; onAnother?: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const name = (id: string) => {
    const c = props.channels.find((channel) => channel.id === id);
    return c ? (c.displayName ?? c.name) : id;
  };
  const count = props.posts.length;
  return (
    <section id="saved" aria-labelledby="saved-title">
      <h2 id="saved-title" ref={heading} tabIndex={-1}>
        {count === 1 ? 'One post saved' : `${count} posts saved, one per channel`}
      </h2>
      {props.withoutLabels && (
        <p class="problem" role="alert">
          They are saved without their labels: {props.withoutLabels}
        </p>
      )}
      <ul class="saved-posts">
        {props.posts.map((p) => (
          <li key={p.id} data-post-id={p.id}>
            <Link href={`/app/posts/${encodeURIComponent(p.id)}`}>{name(p.channelId)}</Link>: {whatHappens(p)}
          </li>
        ))}
      </ul>
      {props.onAnother && (
        <p>
          <button type="button" onClick={props.onAnother}>
            Write another post
          </button>
        </p>
      )}
    </section>
  );
}

/**
 * The form. `keepFor` (a new post's composer) keeps its work as the person's draft in this browser, unless it is
 * as `blank` (what the composer opens with before anyone writes); any other form (an edit, a copy) holds it only
 * while it is open. Either way, leaving with unsaved work asks first.
 */
function Composer(
  props: Basics & {
    initial: Draft;
    edit?: Post;
    /** The other posts of the edited post's group: their channels stay in it, each post with its own content. */
    others?: Post[];
    /** An edit was saved: these are the posts it left on the chosen channels. */
    onEdited?: (posts: Post[]) => void;
    onAnother?: () => void;
    keepFor?: string;
    blank?: Draft;
    onDiscard?: () => void;
  },
) {
  const { channels, rows, labels, initial, edit } = props;
  const [chosenIds, setChosenIds] = useState<string[]>(initial.chosenIds);
  const [text, setText] = useState(initial.text);
  const [ownText, setOwnText] = useState<Record<string, string>>(initial.ownText);
  const [media, setMedia] = useState<ChosenMedia[]>(initial.media);
  const [firstComment, setFirstComment] = useState(initial.firstComment);
  const [thread, setThread] = useState<ThreadPartDraft[]>(initial.thread ?? []);
  const [labelIds, setLabelIds] = useState<string[]>(initial.labelIds);
  const [options, setOptions] = useState<Record<string, Record<string, string>>>(initial.options);
  const [when, setWhen] = useState<When>(initial.when);
  const [dateTime, setDateTime] = useState(initial.dateTime);
  const [timeZone, setTimeZone] = useState(initial.timeZone || browserTimeZone);
  const [prompt, setPrompt] = useState('');
  const [assisted, setAssisted] = useState('');
  const [asking, setAsking] = useState<string | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<{ posts: Post[]; withoutLabels?: string } | undefined>(undefined);
  const [refusal, setRefusal] = useState<ApiError | undefined>(undefined);

  const current: Draft = {
    chosenIds,
    text,
    ownText,
    media,
    firstComment,
    firstCommentDelay: initial.firstCommentDelay,
    thread,
    labelIds,
    options,
    when,
    dateTime,
    timeZone,
  };
  // A kept draft is unsaved work too: only a blank form (or an edit as it came) may be left without a word.
  const blank = props.blank ?? initial;
  const unsaved = saved === undefined && differs(current, blank);
  const unsavedNow = useRef(unsaved);
  unsavedNow.current = unsaved;
  const { keepFor } = props;
  const kept = JSON.stringify(current);
  // Kept as each change renders, not after the next paint: a reload right after a keystroke keeps it too.
  useLayoutEffect(() => {
    if (keepFor && saved === undefined) keepDraft(keepFor, current, blank);
  }, [keepFor, kept, saved]);
  const mayLeave = useCallback(
    () =>
      !unsavedNow.current ||
      confirm(
        keepFor
          ? 'Leave the composer? Nothing is posted yet; what you wrote stays here as a draft for when you come back.'
          : 'Leave without saving? Your changes are lost.',
      ),
    [keepFor],
  );
  useLeaveGuard(mayLeave);
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (!unsavedNow.current) return;
      event.preventDefault();
      event.returnValue = '';
    };
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, []);

  const chosen = channels.filter((c) => chosenIds.includes(c.id));
  const chosenNetworks = [...new Set(chosen.map((c) => c.network))].filter((n) => rows.has(n));
  const problemsAt = (field: string) => refusal?.problemsAt(field) ?? [];
  const elsewhere = refusal
    ? refusal.details.length === 0
      ? [inPeoplesWords(refusal.code, undefined, refusal.message)]
      : refusal.details
          .filter((d) => !FIELDS.some((f) => refusal.problemsAt(f).includes(d.message)))
          .map((d) => d.message)
    : [];
  const textFor = (c: Channel) => ((ownText[c.id] ?? '').trim() !== '' ? ownText[c.id] : text);
  const tooLong = chosen
    .filter((c) => rows.has(c.network))
    .flatMap((c) => {
      const row = rows.get(c.network)!;
      const over = countBy(row.text.counting, textFor(c)) - row.text.limit;
      if (over <= 0) return [];
      return [
        `${over} too many characters for ${c.displayName ?? c.name} (${row.displayName} takes ${row.text.limit})`,
      ];
    })
    .concat(
      thread.flatMap((part, i) =>
        chosenNetworks.flatMap((n) => {
          const row = rows.get(n)!;
          const over = countBy(row.text.counting, part.text) - row.text.limit;
          if (over <= 0) return [];
          return [`${over} too many characters in part ${i + 2} for ${row.displayName} (it takes ${row.text.limit})`];
        }),
      ),
    );
  // The thread's own problems (a network without threads); each part's are shown beside it.
  const threadProblems = [
    ...new Set(
      (refusal?.details ?? []).filter((d) => d.path.replace(/^body\./, '') === 'thread').map((d) => d.message),
    ),
  ];
  const setPart = (index: number, text: string) =>
    setThread((all) => all.map((part, i) => (i === index ? { ...part, text } : part)));
  const withoutThreads = chosenNetworks.filter((n) => !rows.get(n)!.threads).map((n) => rows.get(n)!.displayName);
  const threadBody = () =>
    thread.map(({ text: partText, imageUrls, videoUrls }) => ({
      text: partText,
      ...(imageUrls.length > 0 ? { imageUrls } : {}),
      ...(videoUrls.length > 0 ? { videoUrls } : {}),
    }));
  const wasQueued = edit?.inQueue === true;
  const takesAlt = (n: string) => rows.get(n)!.channelOptions.some((rule) => rule.name === 'altText');
  const altTextFor = {
    offered: chosenNetworks.length === 0 || chosenNetworks.some(takesAlt),
    without: chosenNetworks.filter((n) => !takesAlt(n)).map((n) => rows.get(n)!.displayName),
  };

  /** The chosen networks' typed options (alt text comes from the media) as one channelOptions object. */
  function channelOptions(): Record<string, unknown> | undefined {
    const result: Record<string, unknown> = {};
    for (const network of chosenNetworks) {
      for (const rule of rows.get(network)!.channelOptions) {
        const value = options[network]?.[rule.name];
        if (value === undefined || value === '') continue;
        result[rule.name] =
          rule.type === 'boolean'
            ? value === 'true'
            : rule.type === 'string[]'
              ? value
                  .split(',')
                  .map((v) => v.trim())
                  .filter(Boolean)
              : value;
      }
    }
    const takesAltText = chosenNetworks.some((n) =>
      rows.get(n)!.channelOptions.some((rule) => rule.name === 'altText'),
    );
    const altTexts = media.filter((m) => m.media.kind === 'image').map((m) => m.altText.trim());
    if (takesAltText && altTexts.some((alt) => alt !== '')) result.altText = altTexts;
    return Object.keys(result).length > 0 ? result : undefined;
  }

  /**
   * An edited post's options: what the form shows, as changed, and the rest as the post had them (an option of
   * another network, or alt text the network does not use, is kept, not dropped by an edit of the text).
   */
  function editedOptions(had: Record<string, unknown>): Record<string, unknown> | undefined {
    const shown = new Set(chosenNetworks.flatMap((n) => rows.get(n)!.channelOptions.map((rule) => rule.name)));
    const kept = Object.entries(had).filter(([name]) => !shown.has(name));
    const result: Record<string, unknown> = Object.fromEntries(kept);
    if ('altText' in had) result.altText = media.filter((m) => m.media.kind === 'image').map((m) => m.altText.trim());
    Object.assign(result, channelOptions());
    return Object.keys(result).length > 0 || Object.keys(had).length > 0 ? result : undefined;
  }

  function local(field: string, message: string) {
    setRefusal(new ApiError(400, 'invalid_request', message, [{ path: field, message }]));
  }

  async function save(event: Event) {
    event.preventDefault();
    if (saving || tooLong.length > 0) return;
    setRefusal(undefined);
    if (chosenIds.length === 0) return local('channelIds', 'Choose at least one channel to publish to.');
    let timing: Timing = {};
    if (when === 'schedule') {
      const instant = toInstant(dateTime, timeZone.trim() || 'UTC');
      if ('problem' in instant) return local(instant.problem.field, instant.problem.message);
      timing = { isScheduled: true, dateTime: instant.iso };
    } else if (when === 'queue') timing = { addToQueue: true };
    else if (when === 'draft') timing = { saveAsDraft: true };
    setSaving(true);
    try {
      if (edit) await saveEdit(edit, timing);
      else await saveNew(timing);
    } catch (caught) {
      setRefusal(toApiError(caught));
    } finally {
      setSaving(false);
    }
  }

  /**
   * The post changed in place (PATCH), its labels added and taken off, then its page, showing the change. With its
   * channels changed, the group's channels are sent (the other posts' stay); the posts now on the chosen channels
   * are named, or the one shown when a move left one.
   */
  async function saveEdit(post: Post, timing: Timing) {
    const path = { params: { path: { postId: post.id } } };
    const options = editedOptions(post.channelOptions ?? {});
    const stays = chosenIds.includes(post.channelId);
    // A draft leaves drafts only when told; a post already in the queue keeps its place rather than take the next,
    // and one leaving its channel takes a slot on the channels it goes to (below), not on the one it leaves.
    const then =
      when === 'queue'
        ? wasQueued || !stays
          ? {}
          : timing
        : when === 'draft'
          ? timing
          : { saveAsDraft: false, isScheduled: when === 'schedule', ...timing };
    const delay = initial.firstCommentDelay ? { delayMinutes: initial.firstCommentDelay } : {};
    const comment = firstComment.trim() === '' ? null : { text: firstComment, ...delay };
    const moved = chosenIds.length !== 1 || chosenIds[0] !== post.channelId;
    const groupChannels = [...new Set([...(props.others ?? []).map((p) => p.channelId), ...chosenIds])];
    const group = await call(
      api.PATCH('/posts/{postId}', {
        ...path,
        body: {
          text,
          imageUrls: media.filter((m) => m.media.kind === 'image').map((m) => m.media.url),
          videoUrls: media.filter((m) => m.media.kind === 'video').map((m) => m.media.url),
          firstComment: comment,
          thread: thread.length > 0 ? threadBody() : null,
          ...(options ? { channelOptions: options } : {}),
          ...(moved ? { channelIds: groupChannels } : {}),
          ...then,
        },
      }),
    );
    if (stays) {
      const added = labelIds.filter((id) => !initial.labelIds.includes(id));
      if (added.length > 0) await call(api.POST('/posts/{postId}/labels', { ...path, body: { labelIds: added } }));
      for (const labelId of initial.labelIds.filter((id) => !labelIds.includes(id))) {
        await call(api.DELETE('/posts/{postId}/labels/{labelId}', { params: { path: { postId: post.id, labelId } } }));
      }
    }
    const kept = new Set((props.others ?? []).map((p) => p.id));
    const mine = group.data.filter((p) => p.id === post.id || (!kept.has(p.id) && chosenIds.includes(p.channelId)));
    // The copies are new posts: they take the labels as chosen, since labels belong to a post, not to its group, and
    // a place in their own channel's queue, since a copy keeps the time it was copied with.
    for (const [i, copy] of mine.entries()) {
      if (copy.id === post.id) continue;
      const at = { params: { path: { postId: copy.id } } };
      if (when === 'queue')
        mine[i] =
          (await call(api.PATCH('/posts/{postId}', { ...at, body: { addToQueue: true } }))).data.find(
            (p) => p.id === copy.id,
          ) ?? copy;
      if (labelIds.length > 0) await call(api.POST('/posts/{postId}/labels', { ...at, body: { labelIds } }));
    }
    unsavedNow.current = false;
    props.onEdited?.(mine);
    if (mine.length === 1) navigate(`/app/posts/${encodeURIComponent(mine[0].id)}`);
    else setSaved({ posts: mine });
  }

  async function saveNew(timing: Timing) {
    // Only the chosen channels' own texts: one typed for a channel then unticked is not an error.
    const own = Object.fromEntries(
      Object.entries(ownText).filter(([id, value]) => chosenIds.includes(id) && value.trim() !== ''),
    );
    const opts = channelOptions();
    const fromLibrary = media.filter((m) => !m.external);
    const linked = media.filter((m) => m.external);
    const images = linked.filter((m) => m.media.kind === 'image').map((m) => m.media.url);
    const videos = linked.filter((m) => m.media.kind === 'video').map((m) => m.media.url);
    const body = {
      channelIds: chosenIds,
      text,
      ...(Object.keys(own).length > 0 ? { textByChannel: own } : {}),
      ...(fromLibrary.length > 0 ? { mediaIds: fromLibrary.map((m) => m.media.id) } : {}),
      ...(images.length > 0 ? { imageUrls: images } : {}),
      ...(videos.length > 0 ? { videoUrls: videos } : {}),
      ...(firstComment.trim() !== '' ? { firstComment: { text: firstComment } } : {}),
      ...(thread.length > 0 ? { thread: threadBody() } : {}),
      // Options apply on update: the posts wait as drafts until they have them.
      ...(opts ? { saveAsDraft: true } : timing),
    };
    let posts = (await call(api.POST('/posts', { body }))).data;
    if (opts) {
      const then = when === 'now' ? { isScheduled: false } : timing;
      try {
        const updated: Post[] = [];
        for (const post of posts) {
          const path = { params: { path: { postId: post.id } } };
          const group = await call(api.PATCH('/posts/{postId}', { ...path, body: { channelOptions: opts, ...then } }));
          updated.push(group.data.find((p) => p.id === post.id) ?? post);
        }
        posts = updated;
      } catch (refused) {
        for (const post of posts)
          await call(api.DELETE('/posts/{postId}', { params: { path: { postId: post.id } } })).catch(() => undefined);
        throw refused;
      }
    }
    if (keepFor) forgetDraft(keepFor);
    try {
      if (labelIds.length > 0) {
        for (const post of posts)
          await call(api.POST('/posts/{postId}/labels', { params: { path: { postId: post.id } }, body: { labelIds } }));
      }
    } catch (refused) {
      setSaved({ posts, withoutLabels: toApiError(refused).message });
      return;
    }
    setSaved({ posts });
  }

  /** Runs one AI helper; its refusal is shown beside the field it concerns. */
  async function ask(what: string, field: 'text' | 'prompt', work: () => Promise<string>) {
    setRefusal(undefined);
    setAssisted('');
    setAsking(what);
    try {
      setAssisted(await work());
    } catch (caught) {
      const error = toApiError(caught);
      setRefusal(
        error.details.length > 0
          ? new ApiError(
              error.status,
              error.code,
              error.message,
              error.details.map((d) => ({ ...d, path: field })),
            )
          : new ApiError(error.status, error.code, error.message, [{ path: field, message: error.message }]),
      );
    } finally {
      setAsking(undefined);
    }
  }

  const needText = () => {
    if (text.trim() === '')
      throw new ApiError(400, 'invalid_request', 'Write some text first; the helper works on it.');
  };
  const needPrompt = () => {
    if (prompt.trim() === '') throw new ApiError(400, 'invalid_request', 'Describe what to write or draw first.');
  };
  const hashtags = () =>
    ask('hashtags', 'text', async () => {
      needText();
      const answer = await call(
        api.POST('/ai/hashtags', { body: { text, ...(chosenNetworks[0] ? { network: chosenNetworks[0] } : {}) } }),
      );
      const present = new Set((text.match(/#[\p{L}\p{N}_]+/gu) ?? []).map((tag) => tag.toLowerCase()));
      const fresh = answer.hashtags.filter((tag) => !present.has(tag.toLowerCase()));
      if (fresh.length === 0) return `Every hashtag ${answer.provider} suggested is already in the text.`;
      setText(`${text.trimEnd()}\n\n${fresh.join(' ')}`);
      const skipped = answer.hashtags.length - fresh.length;
      return `Hashtags suggested by ${answer.provider}.${skipped > 0 ? ` ${skipped} already in the text left out.` : ''}`;
    });
  /** A new post gets the network's own version (its channels' own text), from that version if it has one. */
  const fitTo = (network: string) =>
    ask(`rewrite:${network}`, 'text', async () => {
      const name = rows.get(network)?.displayName ?? network;
      const mine = chosen.filter((c) => c.network === network);
      const source = edit ? text : (mine.map(textFor).find((t) => t.trim() !== '') ?? text);
      if (source.trim() === '') needText();
      const body = { text: source, instruction: `Fit this post to ${network}.`, network };
      const answer = await call(api.POST('/ai/rewrites', { body }));
      const counted = `${answer.characters} of ${answer.maxCharacters} characters`;
      const fitted = `Rewritten to fit ${name} (${counted}) by ${answer.provider}.`;
      if (edit) {
        setText(answer.text);
        return fitted;
      }
      setOwnText((all) => ({ ...all, ...Object.fromEntries(mine.map((c) => [c.id, answer.text])) }));
      return `${fitted} It is ${name}'s own version: the other channels keep the text above.`;
    });
  const draft = () =>
    ask('draft', 'prompt', async () => {
      needPrompt();
      const answer = await call(
        api.POST('/ai/post-drafts', { body: { prompt, ...(chosenNetworks[0] ? { network: chosenNetworks[0] } : {}) } }),
      );
      setText(answer.variants[0].text);
      return `Drafted for ${rows.get(answer.network)?.displayName ?? answer.network} (${answer.variants[0].characters} of ${answer.maxCharacters} characters) by ${answer.provider}.`;
    });
  const image = () =>
    ask('image', 'prompt', async () => {
      needPrompt();
      const answer = await call(api.POST('/ai/images', { body: { prompt } }));
      setMedia((all) => [...all, { media: answer.data, altText: prompt.slice(0, 1500) }]);
      return `Image made by ${answer.provider} and added to the media; check its alt text.`;
    });

  const instant = when === 'schedule' ? toInstant(dateTime, timeZone.trim() || 'UTC') : undefined;
  const opts = channelOptions();
  if (saved) {
    return (
      <Saved posts={saved.posts} channels={channels} withoutLabels={saved.withoutLabels} onAnother={props.onAnother} />
    );
  }
  // In an edit, a channel that has its own post of the group stays, with that post: it is not this one to tick.
  const gone = edit && props.disconnected.find((c) => c.id === edit.channelId);
  const ownPostOn = new Map((props.others ?? []).map((p) => [p.channelId, p]));
  return (
    <form class="composer" onSubmit={save} noValidate>
      {elsewhere.map((message) => (
        <p class="problem" role="alert" key={message}>
          {message}
        </p>
      ))}
      <div class="compose-grid">
        <div class="compose-main">
          <fieldset aria-describedby="channel-problems">
            <legend>Channels</legend>
            {edit && (
              <p class="muted" id="edit-channels-hint">
                Untick its channel and tick another to move it there; tick more to post it there too, each as a post of
                its own.
              </p>
            )}
            {gone && (
              <p class="note-box" id="channel-gone">
                Its channel, {gone.displayName ?? gone.name} ({rows.get(gone.network)?.displayName ?? gone.network}),
                was disconnected: tick another channel to move the post there, or reconnect it on the{' '}
                <Link href="/app/channels">Channels page</Link> first.
              </p>
            )}
            {channels.map((c) => {
              const sibling = ownPostOn.get(c.id);
              return (
                <label key={c.id} class="choice">
                  <input
                    type="checkbox"
                    name="channelIds"
                    value={c.id}
                    checked={sibling !== undefined || chosenIds.includes(c.id)}
                    disabled={sibling !== undefined}
                    onChange={(event) => {
                      const on = event.currentTarget.checked;
                      setChosenIds((ids) => (on ? [...ids, c.id] : ids.filter((id) => id !== c.id)));
                    }}
                  />{' '}
                  {c.displayName ?? c.name}{' '}
                  <small class="muted">
                    ({rows.get(c.network)?.displayName ?? c.network} {c.handle})
                  </small>
                  {c.status === 'needs_reconnect' && <strong class="problem"> needs reconnecting</strong>}
                  {sibling && <small class="muted"> already has its own post, made with this one</small>}
                </label>
              );
            })}
            <FieldProblems error={refusal} field={'channelIds'} id="channel-problems" />
          </fieldset>

          <label for="text">Text</label>
          <textarea
            id="text"
            name="text"
            value={text}
            aria-describedby="counters text-problems"
            onInput={(event) => setText(event.currentTarget.value)}
          />
          <p id="counters" class="counters" aria-live="polite">
            {chosenNetworks.length === 0 ? (
              <span class="muted">Choose a channel to see its network's count.</span>
            ) : (
              chosenNetworks.map((n) => (
                <NetworkCount
                  key={n}
                  row={rows.get(n)!}
                  texts={chosen.filter((c) => c.network === n).map(textFor)}
                  main={text}
                />
              ))
            )}
          </p>
          <FieldProblems error={refusal} field={'text'} id="text-problems" />

          <section class="thread" aria-labelledby="thread-title">
            <h2 id="thread-title" class="visually-hidden">
              Thread
            </h2>
            {thread.map((part, i) => (
              <div key={i} class="thread-part" data-part={i + 2}>
                <div class="thread-part-head">
                  <label for={`thread-${i}`}>
                    Part {i + 2} of the thread, a reply to part {i + 1}
                  </label>
                  <button
                    type="button"
                    onClick={() => setThread((all) => all.filter((_, at) => at !== i))}
                    aria-label={`Remove part ${i + 2}`}
                  >
                    Remove
                  </button>
                </div>
                <textarea
                  id={`thread-${i}`}
                  class="short"
                  value={part.text}
                  aria-describedby={`thread-${i}-counters thread-${i}-problems`}
                  onInput={(event) => setPart(i, event.currentTarget.value)}
                />
                {part.imageUrls.length + part.videoUrls.length > 0 && (
                  <p class="muted">
                    With {part.imageUrls.length + part.videoUrls.length} file(s) of its own, kept as they are.
                  </p>
                )}
                <p id={`thread-${i}-counters`} class="counters" aria-live="polite">
                  {chosenNetworks.map((n) => (
                    <Counter key={n} row={rows.get(n)!} text={part.text} />
                  ))}
                </p>
                <FieldProblems error={refusal} field={`thread[${i}].text`} id={`thread-${i}-problems`} />
              </div>
            ))}
            <p>
              <button
                type="button"
                id="add-part"
                onClick={() => setThread((all) => [...all, { text: '', imageUrls: [], videoUrls: [] }])}
              >
                {thread.length === 0 ? 'Make it a thread: add a part' : 'Add a part'}
              </button>
              {thread.length > 0 && withoutThreads.length > 0 && (
                <span class="problem" role="note">
                  {' '}
                  {withoutThreads.join(', ')} {withoutThreads.length > 1 ? 'do' : 'does'} not take threads: untick those
                  channels, or remove the parts.
                </span>
              )}
            </p>
            <div id="thread-problems" class="field-problems">
              {threadProblems.map((m) => (
                <p class="problem" role="alert" key={m}>
                  {m}
                </p>
              ))}
            </div>
          </section>

          {!edit && (
            <details open={Object.values(ownText).some((v) => v !== '') || problemsAt('textByChannel').length > 0}>
              <summary>A different text for one channel</summary>
              {chosen.length === 0 && (
                <p class="muted">Choose channels first; each can then have its own text in place of the one above.</p>
              )}
              {chosen.map((c) => (
                <div key={c.id} class="own-text">
                  <label for={`text-for-${c.id}`}>
                    Text for {c.displayName ?? c.name} ({rows.get(c.network)?.displayName ?? c.network}), in place of
                    the one above
                  </label>
                  <textarea
                    id={`text-for-${c.id}`}
                    class="short"
                    value={ownText[c.id] ?? ''}
                    aria-describedby={`text-for-${c.id}-problems`}
                    onInput={(event) => {
                      const value = event.currentTarget.value;
                      setOwnText((all) => ({ ...all, [c.id]: value }));
                    }}
                  />
                  {(ownText[c.id] ?? '') !== '' && rows.has(c.network) && (
                    <Counter row={rows.get(c.network)!} text={ownText[c.id]} />
                  )}
                  <FieldProblems error={refusal} field={`textByChannel.${c.id}`} id={`text-for-${c.id}-problems`} />
                </div>
              ))}
            </details>
          )}

          <section class="assist" aria-labelledby="assist-title">
            <h2 id="assist-title">AI helpers</h2>
            <p class="muted">They change the text above or add an image; nothing is saved until you save.</p>
            <p class="assist-buttons">
              <button type="button" value="hashtags" onClick={hashtags} disabled={asking !== undefined}>
                Suggest hashtags
              </button>
              {chosenNetworks.map((n) => (
                <button
                  type="button"
                  key={n}
                  value={`rewrite:${n}`}
                  onClick={() => fitTo(n)}
                  disabled={asking !== undefined}
                >
                  Fit to {rows.get(n)!.displayName}
                </button>
              ))}
            </p>
            <label for="prompt">Or ask for a draft or an image</label>
            <input
              id="prompt"
              name="prompt"
              maxLength={1000}
              value={prompt}
              aria-describedby="prompt-problems"
              onInput={(event) => setPrompt(event.currentTarget.value)}
            />
            <FieldProblems error={refusal} field={'prompt'} id="prompt-problems" />
            <p class="assist-buttons">
              <button type="button" value="draft" onClick={draft} disabled={asking !== undefined}>
                Draft the text
              </button>
              <button type="button" value="image" onClick={image} disabled={asking !== undefined}>
                Make an image
              </button>
            </p>
            <p id="assisted" role="status" class="assisted">
              {asking ? 'Asking the AI provider…' : assisted}
            </p>
          </section>

          <MediaField
            chosen={media}
            onChange={setMedia}
            altText={altTextFor}
            problems={[...problemsAt('mediaIds'), ...problemsAt('imageUrls'), ...problemsAt('videoUrls')]}
          />

          <fieldset>
            <legend>Labels</legend>
            {labels.length === 0 && (
              <p class="muted">
                No labels yet. Make them under <Link href="/app/settings/labels">Settings, Labels</Link>; they then show
                here to tick.
              </p>
            )}
            {labels.map((l) => (
              <label key={l.id} class="choice">
                <input
                  type="checkbox"
                  name="labelIds"
                  value={l.id}
                  checked={labelIds.includes(l.id)}
                  onChange={(event) => {
                    const on = event.currentTarget.checked;
                    setLabelIds((ids) => (on ? [...ids, l.id] : ids.filter((id) => id !== l.id)));
                  }}
                />{' '}
                <span class="label-swatch" style={{ background: l.color }} aria-hidden="true" /> {l.name}
              </label>
            ))}
          </fieldset>

          <label for="firstComment">First comment (optional: posted under the post where the network allows it)</label>
          <textarea
            id="firstComment"
            class="short"
            value={firstComment}
            aria-describedby="firstComment-problems"
            onInput={(event) => setFirstComment(event.currentTarget.value)}
          />
          <FieldProblems error={refusal} field={'firstComment'} id="firstComment-problems" />

          {chosenNetworks.some((n) => rows.get(n)!.channelOptions.some((rule) => rule.name !== 'altText')) && (
            <fieldset aria-describedby="options-problems">
              <legend>Network options</legend>
              {chosenNetworks.map((network) =>
                rows
                  .get(network)!
                  .channelOptions.filter((rule) => rule.name !== 'altText')
                  .map((rule) => (
                    <OptionField
                      key={`${network}.${rule.name}`}
                      network={network}
                      networkName={rows.get(network)!.displayName}
                      rule={rule}
                      value={options[network]?.[rule.name] ?? ''}
                      onChange={(value) =>
                        setOptions((all) => ({ ...all, [network]: { ...all[network], [rule.name]: value } }))
                      }
                    />
                  )),
              )}
              <FieldProblems error={refusal} field={'channelOptions'} id="options-problems" />
            </fieldset>
          )}

          <fieldset aria-describedby="when-problems">
            <legend>When</legend>
            <label class="choice">
              <input type="radio" name="when" value="now" checked={when === 'now'} onChange={() => setWhen('now')} />{' '}
              Publish now
            </label>
            <label class="choice">
              <input
                type="radio"
                name="when"
                value="schedule"
                checked={when === 'schedule'}
                onChange={() => setWhen('schedule')}
              />{' '}
              Schedule at a time
            </label>
            {when === 'schedule' && (
              <div class="schedule">
                <label for="dateTime">Date and time</label>
                <input
                  id="dateTime"
                  name="dateTime"
                  type="datetime-local"
                  value={dateTime}
                  aria-describedby="dateTime-problems"
                  onInput={(event) => setDateTime(event.currentTarget.value)}
                />
                <FieldProblems error={refusal} field={'dateTime'} id="dateTime-problems" />
                <ZonePicker value={timeZone} onChange={setTimeZone} describedBy="timezone-problems" />
                <FieldProblems error={refusal} field={'timezone'} id="timezone-problems" />
                {instant && 'iso' in instant && chosen.length > 0 && (
                  <ul class="in-zones" aria-label="The same time where each channel posts">
                    {chosen.map((c) => (
                      <li key={c.id}>
                        {c.displayName ?? c.name}: {formatTime(instant.iso, c.timezone)} (
                        {zoneInWords(c.timezone, Date.parse(instant.iso))})
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            )}
            <GoodTimes
              channels={chosen}
              timeZone={timeZone}
              onPick={(local) => {
                setWhen('schedule');
                setDateTime(local);
              }}
            />
            <label class="choice">
              <input
                type="radio"
                name="when"
                value="queue"
                checked={when === 'queue'}
                onChange={() => setWhen('queue')}
              />
              {wasQueued
                ? ` Keep its place in the queue${chosenIds.some((id) => id !== edit?.channelId) ? '; a channel added gives it its next free slot' : ''}`
                : " Add to each channel's queue (its next free slot)"}
            </label>
            <label class="choice">
              <input
                type="radio"
                name="when"
                value="draft"
                checked={when === 'draft'}
                onChange={() => setWhen('draft')}
              />{' '}
              Save as draft
            </label>
            <FieldProblems error={refusal} field={'addToQueue'} id="when-problems" />
          </fieldset>

          <p class="save">
            <button
              type="submit"
              class="primary"
              disabled={saving || tooLong.length > 0}
              aria-describedby="save-blocked"
            >
              {saving ? 'Saving…' : ACTION[when]}
            </button>{' '}
            <span id="save-blocked" class="problem" aria-live="polite">
              {tooLong.length > 0 ? `Shorten the text first: ${tooLong.join('; ')}.` : ''}
            </span>
          </p>
          {keepFor && unsaved && (
            <p class="draft-kept">
              <span class="muted">Kept as a draft in this browser until you save it. </span>
              <ConfirmButton
                label="Discard draft"
                ariaLabel="Discard draft"
                confirmLabel="Yes, discard it"
                question="Discard this draft? What you wrote is lost."
                onConfirm={async () => {
                  forgetDraft(keepFor);
                  props.onDiscard?.();
                }}
              />
            </p>
          )}
        </div>

        <section class="compose-previews" aria-labelledby="previews-title">
          <h2 id="previews-title">Preview per channel</h2>
          <div id="previews">
            {chosen.length === 0 && <p class="muted">Choose a channel to see how the post will look there.</p>}
            {chosen
              .filter((c) => rows.has(c.network))
              .map((c) => (
                <PreviewCard
                  key={c.id}
                  channel={c}
                  row={rows.get(c.network)!}
                  text={(ownText[c.id] ?? '').trim() !== '' ? ownText[c.id] : text}
                  media={media}
                  firstComment={firstComment}
                  thread={thread}
                  channelOptions={opts}
                />
              ))}
          </div>
        </section>
      </div>
    </form>
  );
}

/** A network's count, of the longest text its chosen channels get; marked when that is not the text above. */
function NetworkCount(props: { row: NetworkRow; texts: string[]; main: string }) {
  const count = (t: string) => countBy(props.row.text.counting, t);
  const longest = props.texts.reduce((a, b) => (count(b) > count(a) ? b : a), props.texts[0] ?? props.main);
  return (
    <span>
      <Counter row={props.row} text={longest} />
      {longest !== props.main && <small class="muted"> (its own version)</small>}
    </span>
  );
}

/** One of a network's channelOptions as the capabilities table types it: a choice, yes/no, a list or a text. */
function OptionField(props: {
  network: string;
  networkName: string;
  rule: OptionRule;
  value: string;
  onChange: (value: string) => void;
}) {
  const { network, rule } = props;
  const id = `option.${network}.${rule.name}`;
  const label = `${props.networkName} ${rule.name}${rule.required ? ' (required)' : ''}: ${rule.description}`;
  const change = (event: { currentTarget: { value: string } }) => props.onChange(event.currentTarget.value);
  return (
    <div class="option">
      <label for={id}>{label}</label>
      {typeof rule.type === 'object' ? (
        <select id={id} name={id} value={props.value} onChange={change}>
          <option value="">(default)</option>
          {rule.type.oneOf.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : rule.type === 'boolean' ? (
        <select id={id} name={id} value={props.value} onChange={change}>
          <option value="">(default)</option>
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      ) : (
        <input
          id={id}
          name={id}
          value={props.value}
          maxLength={rule.type === 'string[]' ? undefined : rule.maxLength}
          placeholder={rule.type === 'string[]' ? 'comma-separated' : undefined}
          onInput={change}
        />
      )}
    </div>
  );
}

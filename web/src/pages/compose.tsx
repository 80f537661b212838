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
 */
import { useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { api, type ApiError, call } from '../api.js';
import { Link, navigate } from '../router.js';
import { useMe } from '../session.js';
import { Empty, Loading, Page, Problem } from '../ui/page.js';
import { composeAt } from '../ui/compose-at.js';
import { EDITABLE } from '../ui/post-state.js';
import { browserTimeZone, toWallClock } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import { AiHelpers } from './compose/ai-helpers.js';
import { ChannelPicker } from './compose/channel-picker.js';
import { altTextFor, chosenChannels, tooLong } from './compose/chosen-channels.js';
import { useDraftFields } from './compose/draft-fields.js';
import { BLANK, readDraft, type Draft, type When } from './compose/draft-store.js';
import { LabelPicker } from './compose/label-picker.js';
import { MediaField } from './compose/media-field.js';
import { channelOptions, NetworkOptions } from './compose/network-options.js';
import { mediaOf } from './compose/post-files.js';
import type { Channel, NetworkRow } from './compose/preview.js';
import { Previews } from './compose/previews.js';
import { ProblemsAbove } from './compose/problems-above.js';
import { SaveBar } from './compose/save-bar.js';
import { Saved, type SavedPosts } from './compose/saved.js';
import { useSubmit } from './compose/submit.js';
import { FirstComment, MainText, OwnTexts } from './compose/texts.js';
import { ThreadParts } from './compose/thread-parts.js';
import { useUnsavedWork } from './compose/unsaved-work.js';
import { WhenField } from './compose/when-field.js';
import './compose/compose.css';

type Label = components['schemas']['Label'];
type Post = components['schemas']['Post'];

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
            This post is {data.post.isLivePost ? 'live on the network' : data.post.status}
            {': it can no longer be changed. '}
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
  const { channels, rows, initial, edit, keepFor } = props;
  const { draft, set } = useDraftFields(initial);
  const [refusal, setRefusal] = useState<ApiError | undefined>(undefined);
  const [saved, setSaved] = useState<SavedPosts | undefined>(undefined);
  // A kept draft is unsaved work too: only a blank form (or an edit as it came) may be left without a word.
  const { unsaved, leaveFreely } = useUnsavedWork({ keepFor, draft, blank: props.blank ?? initial, saved });
  const chosen = chosenChannels(channels, rows, draft);
  const overLimit = tooLong(chosen, rows, draft.thread);
  const { saving, save } = useSubmit({
    draft,
    initial,
    networks: chosen.networks,
    rows,
    tooLong: overLimit,
    edit,
    others: props.others,
    keepFor,
    setRefusal,
    setSaved,
    leaveFreely,
    onEdited: props.onEdited,
  });
  if (saved) return <Saved {...saved} channels={channels} onAnother={props.onAnother} />;
  const problemsAt = (field: string) => refusal?.problemsAt(field) ?? [];
  return (
    <form class="composer" onSubmit={save} noValidate>
      <ProblemsAbove refusal={refusal} />
      <div class="compose-grid">
        <div class="compose-main">
          <ChannelPicker
            channels={channels}
            rows={rows}
            chosenIds={draft.chosenIds}
            setChosenIds={set.chosenIds}
            disconnected={props.disconnected}
            edit={edit}
            others={props.others}
            refusal={refusal}
          />
          <MainText text={draft.text} setText={set.text} chosen={chosen} rows={rows} refusal={refusal} />
          <ThreadParts
            thread={draft.thread}
            setThread={set.thread}
            networks={chosen.networks}
            rows={rows}
            refusal={refusal}
          />
          {!edit && (
            <OwnTexts
              chosen={chosen.chosen}
              rows={rows}
              ownText={draft.ownText}
              setOwnText={set.ownText}
              refusal={refusal}
            />
          )}
          <AiHelpers
            text={draft.text}
            set={set}
            chosen={chosen}
            rows={rows}
            editing={edit !== undefined}
            refusal={refusal}
            setRefusal={setRefusal}
          />
          <MediaField
            chosen={draft.media}
            onChange={set.media}
            altText={altTextFor(rows, chosen.networks)}
            problems={[...problemsAt('mediaIds'), ...problemsAt('imageUrls'), ...problemsAt('videoUrls')]}
          />
          <LabelPicker labels={props.labels} labelIds={draft.labelIds} setLabelIds={set.labelIds} />
          <FirstComment value={draft.firstComment} setValue={set.firstComment} refusal={refusal} />
          <NetworkOptions
            networks={chosen.networks}
            rows={rows}
            options={draft.options}
            setOptions={set.options}
            refusal={refusal}
          />
          <WhenField draft={draft} set={set} chosen={chosen.chosen} edit={edit} refusal={refusal} />
          <SaveBar
            when={draft.when}
            saving={saving}
            tooLong={overLimit}
            keepFor={keepFor}
            unsaved={unsaved}
            onDiscard={props.onDiscard}
          />
        </div>
        <Previews
          chosen={chosen}
          rows={rows}
          draft={draft}
          channelOptions={channelOptions(chosen.networks, rows, draft.options, draft.media)}
        />
      </div>
    </form>
  );
}

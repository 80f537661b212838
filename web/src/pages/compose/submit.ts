/**
 * Saving, as REST offers an integration. A new post: POST /posts (which ignores channelOptions, SPEC), then PATCH
 * each post with the options (applied on update) and POST its labels. If the options are refused the posts just
 * made are deleted again, so saving once more does not leave copies behind; if a label is refused the posts stand,
 * and the composer says so beside the list of posts instead of offering a second save. An edit: PATCH the post,
 * with the group's channels when they changed, then its labels, and the copies' labels and queue places.
 */
import { useState } from 'preact/hooks';
import type { components } from '../../../../sdk/src/index.js';
import { api, ApiError, call, toApiError } from '../../api.js';
import { navigate } from '../../router.js';
import { toInstant } from '../../ui/time.js';
import { forgetDraft, type Draft, type ThreadPartDraft } from './draft-store.js';
import { channelOptions, editedOptions } from './network-options.js';
import type { NetworkRow } from './preview.js';
import type { SavedPosts } from './saved.js';

type Post = components['schemas']['Post'];
type Timing = { isScheduled?: boolean; dateTime?: string; addToQueue?: boolean; saveAsDraft?: boolean };

const threadBody = (thread: ThreadPartDraft[]) =>
  thread.map(({ text: partText, imageUrls, videoUrls }) => ({
    text: partText,
    ...(imageUrls.length > 0 ? { imageUrls } : {}),
    ...(videoUrls.length > 0 ? { videoUrls } : {}),
  }));

export function useSubmit(args: {
  draft: Draft;
  /** What the form opened with: an edit takes off the labels unticked since, and keeps the comment's delay. */
  initial: Draft;
  networks: string[];
  rows: Map<string, NetworkRow>;
  tooLong: string[];
  edit?: Post;
  others?: Post[];
  keepFor?: string;
  setRefusal: (refusal: ApiError | undefined) => void;
  setSaved: (saved: SavedPosts) => void;
  leaveFreely: () => void;
  onEdited?: (posts: Post[]) => void;
}): { saving: boolean; save: (event: Event) => Promise<void> } {
  const { draft, initial, networks, rows, edit, keepFor, setRefusal, setSaved } = args;
  const { chosenIds, text, media, firstComment, thread, labelIds, options, when, dateTime, timeZone } = draft;
  const [saving, setSaving] = useState(false);
  const wasQueued = edit?.inQueue === true;

  function local(field: string, message: string) {
    setRefusal(new ApiError(400, 'invalid_request', message, [{ path: field, message }]));
  }

  async function save(event: Event) {
    event.preventDefault();
    if (saving || args.tooLong.length > 0) return;
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
    const edited = editedOptions(post.channelOptions ?? {}, networks, rows, options, media);
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
    const groupChannels = [...new Set([...(args.others ?? []).map((p) => p.channelId), ...chosenIds])];
    const group = await call(
      api.PATCH('/posts/{postId}', {
        ...path,
        body: {
          text,
          imageUrls: media.filter((m) => m.media.kind === 'image').map((m) => m.media.url),
          videoUrls: media.filter((m) => m.media.kind === 'video').map((m) => m.media.url),
          firstComment: comment,
          thread: thread.length > 0 ? threadBody(thread) : null,
          ...(edited ? { channelOptions: edited } : {}),
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
    const kept = new Set((args.others ?? []).map((p) => p.id));
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
    args.leaveFreely();
    args.onEdited?.(mine);
    if (mine.length === 1) navigate(`/app/posts/${encodeURIComponent(mine[0].id)}`);
    else setSaved({ posts: mine });
  }

  async function saveNew(timing: Timing) {
    // Only the chosen channels' own texts: one typed for a channel then unticked is not an error.
    const own = Object.fromEntries(
      Object.entries(draft.ownText).filter(([id, value]) => chosenIds.includes(id) && value.trim() !== ''),
    );
    const opts = channelOptions(networks, rows, options, media);
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
      ...(thread.length > 0 ? { thread: threadBody(thread) } : {}),
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

  return { saving, save };
}

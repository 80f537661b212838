/**
 * The channels to post to. In an edit, unticking the post's channel and ticking another moves it, and a channel
 * that already has its own post of the group shows ticked and fixed: that post stays, with its own content.
 */
import type { Dispatch, StateUpdater } from 'preact/hooks';
import type { components } from '../../../../sdk/src/index.js';
import type { ApiError } from '../../api.js';
import { Link } from '../../router.js';
import { FieldProblems } from '../../ui/page.js';
import type { Channel, NetworkRow } from './preview.js';

type Post = components['schemas']['Post'];

export function ChannelPicker(props: {
  channels: Channel[];
  rows: Map<string, NetworkRow>;
  chosenIds: string[];
  setChosenIds: Dispatch<StateUpdater<string[]>>;
  /** The account's disconnected channels: a post left on one names it. */
  disconnected: Channel[];
  edit?: Post;
  others?: Post[];
  refusal?: ApiError;
}) {
  const { rows, edit, chosenIds, setChosenIds } = props;
  const gone = edit && props.disconnected.find((c) => c.id === edit.channelId);
  const ownPostOn = new Map((props.others ?? []).map((p) => [p.channelId, p]));
  return (
    <fieldset aria-describedby="channel-problems">
      <legend>Channels</legend>
      {edit && (
        <p class="muted" id="edit-channels-hint">
          Untick its channel and tick another to move it there; tick more to post it there too, each as a post of its
          own.
        </p>
      )}
      {gone && (
        <p class="note-box" id="channel-gone">
          Its channel, {gone.displayName ?? gone.name} ({rows.get(gone.network)?.displayName ?? gone.network}), was
          disconnected: tick another channel to move the post there, or reconnect it on the{' '}
          <Link href="/app/channels">Channels page</Link> first.
        </p>
      )}
      {props.channels.map((c) => {
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
      <FieldProblems error={props.refusal} field={'channelIds'} id="channel-problems" />
    </fieldset>
  );
}

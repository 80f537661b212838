/** The account's labels to tick for the post; where there are none yet, where to make them. */
import type { Dispatch, StateUpdater } from 'preact/hooks';
import type { components } from '../../../../sdk/src/index.js';
import { Link } from '../../router.js';

type Label = components['schemas']['Label'];

export function LabelPicker(props: {
  labels: Label[];
  labelIds: string[];
  setLabelIds: Dispatch<StateUpdater<string[]>>;
}) {
  const { labels, labelIds, setLabelIds } = props;
  return (
    <fieldset>
      <legend>Labels</legend>
      {labels.length === 0 && (
        <p class="muted">
          No labels yet. Make them under <Link href="/app/settings/labels">Settings, Labels</Link>; they then show here
          to tick.
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
  );
}

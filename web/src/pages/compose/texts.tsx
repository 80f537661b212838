/**
 * The post's texts: the one for every channel, with each network's count of the longest text its channels get;
 * a channel's own version in place of it (a new post only: an edit is one post, on one channel); the first comment.
 */
import type { Dispatch, StateUpdater } from 'preact/hooks';
import { countBy } from '../../../../src/domain/networks/text-length.js';
import type { ApiError } from '../../api.js';
import { FieldProblems } from '../../ui/page.js';
import type { ChosenChannels } from './chosen-channels.js';
import { Counter, type Channel, type NetworkRow } from './preview.js';

export function MainText(props: {
  text: string;
  setText: Dispatch<StateUpdater<string>>;
  chosen: ChosenChannels;
  rows: Map<string, NetworkRow>;
  refusal?: ApiError;
}) {
  const { text, rows } = props;
  const { chosen, networks, textFor } = props.chosen;
  return (
    <>
      <label for="text">Text</label>
      <textarea
        id="text"
        name="text"
        value={text}
        aria-describedby="counters text-problems"
        onInput={(event) => props.setText(event.currentTarget.value)}
      />
      <p id="counters" class="counters" aria-live="polite">
        {networks.length === 0 ? (
          <span class="muted">Choose a channel to see its network's count.</span>
        ) : (
          networks.map((n) => (
            <NetworkCount
              key={n}
              row={rows.get(n)!}
              texts={chosen.filter((c) => c.network === n).map(textFor)}
              main={text}
            />
          ))
        )}
      </p>
      <FieldProblems error={props.refusal} field={'text'} id="text-problems" />
    </>
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

export function OwnTexts(props: {
  chosen: Channel[];
  rows: Map<string, NetworkRow>;
  ownText: Record<string, string>;
  setOwnText: Dispatch<StateUpdater<Record<string, string>>>;
  refusal?: ApiError;
}) {
  const { chosen, rows, ownText, setOwnText, refusal } = props;
  return (
    <details
      open={Object.values(ownText).some((v) => v !== '') || (refusal?.problemsAt('textByChannel') ?? []).length > 0}
    >
      <summary>A different text for one channel</summary>
      {chosen.length === 0 && (
        <p class="muted">Choose channels first; each can then have its own text in place of the one above.</p>
      )}
      {chosen.map((c) => (
        <div key={c.id} class="own-text">
          <label for={`text-for-${c.id}`}>
            Text for {c.displayName ?? c.name} ({rows.get(c.network)?.displayName ?? c.network}), in place of the one
            above
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
  );
}

export function FirstComment(props: { value: string; setValue: Dispatch<StateUpdater<string>>; refusal?: ApiError }) {
  return (
    <>
      <label for="firstComment">First comment (optional: posted under the post where the network allows it)</label>
      <textarea
        id="firstComment"
        class="short"
        value={props.value}
        aria-describedby="firstComment-problems"
        onInput={(event) => props.setValue(event.currentTarget.value)}
      />
      <FieldProblems error={props.refusal} field={'firstComment'} id="firstComment-problems" />
    </>
  );
}

/**
 * The save button, named for what it does and held back while a text is too long (saying which), and for a new
 * post's kept draft, the word that it is kept and a way to discard it.
 */
import { ConfirmButton } from '../../ui/confirm-button.js';
import { forgetDraft, type When } from './draft-store.js';

/** The button says what pressing it does. */
const ACTION: Record<When, string> = {
  now: 'Publish now',
  schedule: 'Schedule',
  queue: 'Add to queue',
  draft: 'Save draft',
};

export function SaveBar(props: {
  when: When;
  saving: boolean;
  tooLong: string[];
  keepFor?: string;
  unsaved: boolean;
  onDiscard?: () => void;
}) {
  const { tooLong, keepFor } = props;
  return (
    <>
      <p class="save">
        <button
          type="submit"
          class="primary"
          disabled={props.saving || tooLong.length > 0}
          aria-describedby="save-blocked"
        >
          {props.saving ? 'Saving…' : ACTION[props.when]}
        </button>{' '}
        <span id="save-blocked" class="problem" aria-live="polite">
          {tooLong.length > 0 ? `Shorten the text first: ${tooLong.join('; ')}.` : ''}
        </span>
      </p>
      {keepFor && props.unsaved && (
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
    </>
  );
}

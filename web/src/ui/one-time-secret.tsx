/**
 * A secret Herald shows once (an API key, a webhook signing secret, a temporary password): the words saying so,
 * the value, and a Copy button that says when it copied. Nothing keeps it: leaving the page forgets it.
 */
import type { ComponentChildren } from 'preact';
import { CopyFailed, useCopy } from './copy-text.js';

export function OneTimeSecret(props: { id: string; value: string; children: ComponentChildren }) {
  const [copied, copy] = useCopy(props.value);
  return (
    <div class="one-time-secret" role="status">
      <p>{props.children}</p>
      <p class="secret-line">
        <code class="secret" id={props.id}>
          {props.value}
        </code>{' '}
        <button type="button" id={`copy-${props.id}`} onClick={copy} aria-describedby={props.id}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </p>
      <CopyFailed copied={copied} />
    </div>
  );
}

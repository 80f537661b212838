/**
 * A secret Herald shows once (an API key, a webhook signing secret, a temporary password): the words saying so,
 * the value, and a Copy button that says when it copied. Nothing keeps it: leaving the page forgets it.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function OneTimeSecret(props: { id: string; value: string; children: ComponentChildren }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = () => {
    navigator.clipboard.writeText(props.value).then(() => setCopied('yes'), () => setCopied('failed'));
  };
  return (
    <div class="one-time-secret" role="status">
      <p>{props.children}</p>
      <p class="secret-line">
        <code class="secret" id={props.id}>{props.value}</code>{' '}
        <button type="button" id={`copy-${props.id}`} onClick={copy} aria-describedby={props.id}>{copied === 'yes' ? 'Copied' : 'Copy'}</button>
      </p>
      {copied === 'failed' && <p class="problem">The browser did not let Herald copy: select the text and copy it yourself.</p>}
    </div>
  );
}

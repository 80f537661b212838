/**
 * Text a person copies into another tool (an address, a configuration), with a Copy button that says whether it
 * copied; when the browser refuses, the text is there to select by hand.
 */
import { useState } from 'preact/hooks';

export type Copied = 'no' | 'yes' | 'failed';

export function useCopy(value: string): [Copied, () => void] {
  const [copied, setCopied] = useState<Copied>('no');
  const copy = () => {
    navigator.clipboard.writeText(value).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };
  return [copied, copy];
}

export function CopyFailed(props: { copied: Copied }) {
  if (props.copied !== 'failed') return null;
  return <p class="problem">The browser did not let Herald copy: select the text and copy it yourself.</p>;
}

/** One line (an address) or a block (a file's contents), labelled, with its Copy button. */
export function CopyText(props: { id: string; label: string; hint?: string; value: string; block?: boolean }) {
  const [copied, copy] = useCopy(props.value);
  return (
    <div class={props.block ? 'copy-text block' : 'copy-text'}>
      <div class="copy-line">
        <span id={`${props.id}-label`} class="copy-label">
          {props.label}
        </span>
        <button type="button" id={`copy-${props.id}`} onClick={copy} aria-describedby={`${props.id}-label`}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {props.hint && <p class="muted copy-hint">{props.hint}</p>}
      {props.block ? (
        <pre id={props.id} tabIndex={0}>
          <code>{props.value}</code>
        </pre>
      ) : (
        <code id={props.id} class="copy-value">
          {props.value}
        </code>
      )}
      <CopyFailed copied={copied} />
    </div>
  );
}

/**
 * A thread's parts after the post, each a reply to the one before, with its own counter and problems; a part
 * copied from a post keeps its files as they are, since the form has no media field per part.
 */
import type { Dispatch, StateUpdater } from 'preact/hooks';
import type { ApiError } from '../../api.js';
import { FieldProblems } from '../../ui/page.js';
import type { ThreadPartDraft } from './draft-store.js';
import { Counter, type NetworkRow } from './preview.js';

export function ThreadParts(props: {
  thread: ThreadPartDraft[];
  setThread: Dispatch<StateUpdater<ThreadPartDraft[]>>;
  networks: string[];
  rows: Map<string, NetworkRow>;
  refusal?: ApiError;
}) {
  const { thread, setThread, networks, rows, refusal } = props;
  // The thread's own problems (a network without threads); each part's are shown beside it.
  const threadProblems = [
    ...new Set(
      (refusal?.details ?? []).filter((d) => d.path.replace(/^body\./, '') === 'thread').map((d) => d.message),
    ),
  ];
  const setPart = (index: number, text: string) =>
    setThread((all) => all.map((part, i) => (i === index ? { ...part, text } : part)));
  const withoutThreads = networks.filter((n) => !rows.get(n)!.threads).map((n) => rows.get(n)!.displayName);
  return (
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
            {networks.map((n) => (
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
  );
}

/** The post as it will look on each chosen channel, with the text that channel gets. */
import type { ChosenChannels } from './chosen-channels.js';
import type { Draft } from './draft-store.js';
import { PreviewCard, type NetworkRow } from './preview.js';

export function Previews(props: {
  chosen: ChosenChannels;
  rows: Map<string, NetworkRow>;
  draft: Draft;
  channelOptions: Record<string, unknown> | undefined;
}) {
  const { rows, draft } = props;
  const { chosen, textFor } = props.chosen;
  return (
    <section class="compose-previews" aria-labelledby="previews-title">
      <h2 id="previews-title">Preview per channel</h2>
      <div id="previews">
        {chosen.length === 0 && <p class="muted">Choose a channel to see how the post will look there.</p>}
        {chosen
          .filter((c) => rows.has(c.network))
          .map((c) => (
            <PreviewCard
              key={c.id}
              channel={c}
              row={rows.get(c.network)!}
              text={textFor(c)}
              media={draft.media}
              firstComment={draft.firstComment}
              thread={draft.thread}
              channelOptions={props.channelOptions}
            />
          ))}
      </div>
    </section>
  );
}

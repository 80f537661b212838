/**
 * What the ticked channels make of the form: their networks (those Herald knows), the text each channel gets (its
 * own version, or the text above), what is too long for them, and which networks take alt text and threads.
 */
import { countBy } from '../../../../src/domain/networks/text-length.js';
import type { ThreadPartDraft } from './draft-store.js';
import type { Channel, NetworkRow } from './preview.js';

export interface ChosenChannels {
  chosen: Channel[];
  networks: string[];
  textFor: (c: Channel) => string;
}

export function chosenChannels(
  channels: Channel[],
  rows: Map<string, NetworkRow>,
  draft: { chosenIds: string[]; text: string; ownText: Record<string, string> },
): ChosenChannels {
  const chosen = channels.filter((c) => draft.chosenIds.includes(c.id));
  return {
    chosen,
    networks: [...new Set(chosen.map((c) => c.network))].filter((n) => rows.has(n)),
    textFor: (c) => ((draft.ownText[c.id] ?? '').trim() !== '' ? draft.ownText[c.id] : draft.text),
  };
}

/** Every text, of a channel or a thread's part, past its network's limit, said as what to shorten. */
export function tooLong(
  { chosen, networks, textFor }: ChosenChannels,
  rows: Map<string, NetworkRow>,
  thread: ThreadPartDraft[],
): string[] {
  return chosen
    .filter((c) => rows.has(c.network))
    .flatMap((c) => {
      const row = rows.get(c.network)!;
      const over = countBy(row.text.counting, textFor(c)) - row.text.limit;
      if (over <= 0) return [];
      return [
        `${over} too many characters for ${c.displayName ?? c.name} (${row.displayName} takes ${row.text.limit})`,
      ];
    })
    .concat(
      thread.flatMap((part, i) =>
        networks.flatMap((n) => {
          const row = rows.get(n)!;
          const over = countBy(row.text.counting, part.text) - row.text.limit;
          if (over <= 0) return [];
          return [`${over} too many characters in part ${i + 2} for ${row.displayName} (it takes ${row.text.limit})`];
        }),
      ),
    );
}

export const takesAltText = (rows: Map<string, NetworkRow>, network: string) =>
  rows.get(network)!.channelOptions.some((rule) => rule.name === 'altText');

/** Whether the media offer alt text (before any channel is ticked too), and the ticked networks that take none. */
export function altTextFor(rows: Map<string, NetworkRow>, networks: string[]) {
  return {
    offered: networks.length === 0 || networks.some((n) => takesAltText(rows, n)),
    without: networks.filter((n) => !takesAltText(rows, n)).map((n) => rows.get(n)!.displayName),
  };
}

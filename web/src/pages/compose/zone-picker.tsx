/**
 * The time zone a scheduled time is read in: a field taking an IANA name, its zone named in people's words beside
 * it, and while what is typed is not a zone yet, the zones it matches (by city, region or the zone's name, e.g.
 * "berlin" or "central european"), the browser's own first, each a button that picks it.
 */
import { useRef } from 'preact/hooks';
import { browserTimeZone, zoneInWords, zoneLongName } from '../../ui/time.js';

export interface Zone {
  id: string;
  /** "Berlin time (UTC+01:00)". */
  words: string;
  /** What it is found by besides its name and words: "Central European Standard Time". */
  longName: string;
}

const SHOWN = 8;

let zones: Zone[] | undefined;

/** Every zone the browser knows, the browser's own first; named once, on first use. */
export function allZones(): Zone[] {
  if (!zones) {
    const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    const ids = [...new Set([browserTimeZone, ...known, 'UTC'])];
    zones = ids.map((id) => ({ id, words: zoneInWords(id), longName: zoneLongName(id) }));
  }
  return zones;
}

const squash = (text: string) =>
  text
    .toLowerCase()
    .replace(/[_\s]+/g, ' ')
    .trim();

/** The zones whose name or words hold what was typed, in the order of allZones. */
export function matchingZones(typed: string): Zone[] {
  const wanted = squash(typed);
  return allZones().filter((z) => squash(`${z.id} ${z.words} ${z.longName}`).includes(wanted));
}

export function ZonePicker(props: { value: string; onChange: (zone: string) => void; describedBy: string }) {
  const exact = allZones().find((z) => z.id.toLowerCase() === props.value.trim().toLowerCase());
  const matches = exact ? [] : matchingZones(props.value);
  const field = useRef<HTMLInputElement>(null);
  // The picked zone's button goes with the list: the focus returns to the field rather than to the page.
  const pick = (id: string) => {
    props.onChange(id);
    field.current?.focus();
  };
  return (
    <div class="zone-picker">
      <label for="timezone">In the time zone (type a city or a zone to search)</label>
      <input
        ref={field}
        id="timezone"
        name="timezone"
        value={props.value}
        autocomplete="off"
        spellcheck={false}
        aria-describedby={`timezone-words ${props.describedBy}`}
        onInput={(event) => props.onChange(event.currentTarget.value)}
      />
      <p id="timezone-words" class="muted zone-words">
        {exact ? exact.words : matches.length === 0 ? 'No time zone matches what is typed.' : 'Pick a zone below.'}
      </p>
      {matches.length > 0 && (
        <ul id="timezone-matches" class="zone-matches" aria-label="Time zones matching what is typed">
          {matches.slice(0, SHOWN).map((z) => (
            <li key={z.id}>
              <button type="button" data-zone={z.id} onClick={() => pick(z.id)}>
                {z.words} <small class="muted">{z.longName}</small>
              </button>
            </li>
          ))}
          {matches.length > SHOWN && <li class="muted">{matches.length - SHOWN} more: type more of the name.</li>}
        </ul>
      )}
    </div>
  );
}

/**
 * The calendar's choices above it: the view, the period, the channels and the legend of states. Each choice is a
 * link to the calendar's address with that choice changed, so Back undoes it; only ticking a channel replaces the
 * address, so Back does not walk through every tick.
 */
import type { components } from '../../../../sdk/src/index.js';
import { Link, navigate } from '../../router.js';
import { networkName } from '../../ui/network-name.js';
import { type Entry, ICONS } from './entry.js';
import { type Calendar, type Period, VIEWS } from './period.js';

type Channel = components['schemas']['Channel'];

/** The switch between the team calendar and all content, which adds live posts. */
export function LiveSwitch(props: { period: Period }) {
  const { period } = props;
  return (
    <Link href={period.href({ live: !period.live })}>
      {period.live ? 'Team calendar (without live posts)' : 'All content, with live posts'}
    </Link>
  );
}

export function CalendarToolbar(props: {
  period: Period;
  data: Calendar | undefined;
  channels: Channel[] | undefined;
}) {
  const { period, data } = props;
  const { narrow, asked, view, href } = period;
  return (
    <>
      <div class="calendar-controls">
        <nav aria-label="Calendar view" class="views">
          {VIEWS.filter((v) => !narrow || v.view !== 'month').map((v) => (
            <Link
              key={v.view}
              class="button"
              href={href({ view: v.view })}
              aria-current={view === v.view ? 'page' : undefined}
            >
              {v.label}
            </Link>
          ))}
        </nav>
        <nav aria-label="Period" class="periods">
          {data?.previous ? (
            <Link class="button" href={href({ date: data.previous })}>
              Previous
            </Link>
          ) : (
            <span class="button" aria-disabled="true">
              Previous
            </span>
          )}
          <Link class="button" href={href({ date: null })}>
            Today
          </Link>
          {data?.next ? (
            <Link class="button" href={href({ date: data.next })}>
              Next
            </Link>
          ) : (
            <span class="button" aria-disabled="true">
              Next
            </span>
          )}
        </nav>
      </div>
      {narrow && asked === 'month' && <p class="muted">On a phone the calendar shows a week at a time.</p>}
      <ChannelFilter period={period} channels={props.channels} />
      <Legend live={period.live} />
    </>
  );
}

function ChannelFilter(props: { period: Period; channels: Channel[] | undefined }) {
  const { chosen, href } = props.period;
  return (
    <details class="channel-filter" open={chosen.length > 0}>
      <summary>Channels: {chosen.length ? `${chosen.length} chosen` : 'all'}</summary>
      <fieldset>
        <legend>Show the posts of</legend>
        {(props.channels ?? []).map((c) => (
          <label class="inline" key={c.id}>
            <input
              type="checkbox"
              checked={chosen.includes(c.id)}
              onChange={(event) =>
                navigate(
                  href({
                    channels: event.currentTarget.checked ? [...chosen, c.id] : chosen.filter((id) => id !== c.id),
                  }),
                  { replace: true },
                )
              }
            />{' '}
            {c.displayName ?? c.name} ({networkName(c.network)})
          </label>
        ))}
        {chosen.length > 0 && <Link href={href({ channels: [] })}>All channels</Link>}
        {props.channels?.length === 0 && (
          <p>
            No channels yet: <Link href="/app/channels">connect one</Link>.
          </p>
        )}
      </fieldset>
    </details>
  );
}

function Legend(props: { live: boolean }) {
  return (
    <ul class="legend" aria-label="States">
      {(Object.keys(ICONS) as Entry['status'][])
        .filter((s) => props.live || s !== 'live')
        .map((s) => (
          <li key={s} class={`entry ${s}`}>
            <span class="icon" aria-hidden="true">
              {ICONS[s]}
            </span>{' '}
            {s}
          </li>
        ))}
    </ul>
  );
}

/**
 * Insights (GET /insights): what the published posts did in a period, against the period before. A period picker
 * (the last 7, 28 or 90 days, or any days) and a channel or label filter live in the address, so a view can be
 * shared. Shown: the totals with their change, audience over time and engagement by day as uPlot charts, each with
 * a table of the same numbers for screen readers (and anyone who wants the figures); the weekday-by-hour heat map,
 * itself a table; the top posts with their pictures; results by label and by network; and per channel when to
 * post (GET /channels/{id}/best-times). The period's posts download as CSV. On a phone the charts take the width.
 */
import { useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { api, call, toApiError, type ApiError } from '../api.js';
import { Link, navigate, useLocation } from '../router.js';
import { Chart } from '../ui/chart.js';
import { Empty, Loading, Page, Problem } from '../ui/page.js';
import { zoneInWords } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import './insights.css';

type Report = components['schemas']['InsightsReport'];
type Totals = components['schemas']['InsightTotals'];
type BestTimes = components['schemas']['BestTimes'];

const PRESETS = [7, 28, 90];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const number = new Intl.NumberFormat();

function today(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate())).toISOString().slice(0, 10);
}

function daysBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

function dayLabel(day: string): string {
  return new Intl.DateTimeFormat(undefined, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${day}T00:00:00Z`));
}

function change(value: number | null): string {
  if (value === null) return 'no earlier figure to compare';
  if (value === 0) return 'no change';
  return `${value > 0 ? '▲ up' : '▼ down'} ${Math.abs(value)}%`;
}

function followers(start: number | null, end: number): string {
  return start === null ? number.format(end) : `${number.format(end)} (from ${number.format(start)})`;
}

function rate(totals: Totals): string {
  return totals.engagementRate === null ? '—' : `${(totals.engagementRate * 100).toFixed(2)}%`;
}

export function InsightsPage() {
  const location = useLocation();
  const query = location.searchParams;
  const to = query.get('to') ?? today();
  const from = query.get('from') ?? daysBefore(to, 27);
  const channelId = query.get('channel') ?? '';
  const labelId = query.get('label') ?? '';
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const filters = {
    from,
    to,
    timezone,
    channelIds: channelId ? [channelId] : undefined,
    labelIds: labelId ? [labelId] : undefined,
  };
  const report = useApi(
    async () => (await call(api.GET('/insights', { params: { query: filters } }))).data,
    [from, to, channelId, labelId],
    { keepPrevious: true },
  );
  const channels = useApi(async () => (await call(api.GET('/channels'))).data, []);
  const labels = useApi(async () => (await call(api.GET('/labels'))).data, []);
  const [exportError, setExportError] = useState<ApiError | undefined>(undefined);

  const go = (changes: Record<string, string>) => {
    const next = new URLSearchParams(query);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    navigate(`/app/insights?${next}`);
  };

  const download = async () => {
    setExportError(undefined);
    try {
      const csv = (await call(
        api.GET('/insights/export', { params: { query: filters }, parseAs: 'text' }),
      )) as unknown as string;
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      link.download = `herald-insights-${from}-to-${to}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (caught) {
      setExportError(toApiError(caught));
    }
  };

  const data = report.data;
  return (
    <Page
      title="Insights"
      actions={
        <button type="button" onClick={download}>
          Download CSV
        </button>
      }
    >
      <Problem error={exportError} />
      <form
        class="insights-filter"
        aria-label="Period and filters"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          go({ from: String(form.get('from') ?? ''), to: String(form.get('to') ?? '') });
        }}
      >
        <fieldset class="presets">
          <legend>Period</legend>
          {PRESETS.map((days) => (
            <button
              key={days}
              type="button"
              aria-pressed={query.get('to') === null && from === daysBefore(to, days - 1)}
              onClick={() => go({ from: daysBefore(today(), days - 1), to: '' })}
            >
              Last {days} days
            </button>
          ))}
        </fieldset>
        <div class="range">
          <span>
            <label for="insights-from">From</label>
            <input id="insights-from" name="from" type="date" value={from} required />
          </span>
          <span>
            <label for="insights-to">To</label>
            <input id="insights-to" name="to" type="date" value={to} required />
          </span>
          <button type="submit">Show</button>
        </div>
        <div class="range">
          <span>
            <label for="insights-channel">Channel</label>
            <select id="insights-channel" value={channelId} onChange={(e) => go({ channel: e.currentTarget.value })}>
              <option value="">All channels</option>
              {(channels.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.displayName ?? c.name}
                </option>
              ))}
            </select>
          </span>
          <span>
            <label for="insights-label">Label</label>
            <select id="insights-label" value={labelId} onChange={(e) => go({ label: e.currentTarget.value })}>
              <option value="">All posts</option>
              {(labels.data ?? []).map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </select>
          </span>
        </div>
      </form>
      <Problem error={report.error} />
      {!data ? (
        <Loading label="Loading insights" rows={6} />
      ) : (
        <Report
          report={data}
          channels={channels.data ?? []}
          labelNames={new Map((labels.data ?? []).map((l) => [l.id, l.name]))}
        />
      )}
    </Page>
  );
}

function Report(props: {
  report: Report;
  channels: components['schemas']['Channel'][];
  labelNames: Map<string, string>;
}) {
  const { report } = props;
  const names = new Map(props.channels.map((c) => [c.id, c.displayName ?? c.name]));
  const previous = `${dayLabel(report.previousPeriod.from)} to ${dayLabel(report.previousPeriod.to)}`;
  return (
    <>
      <p class="period-said" aria-live="polite">
        {dayLabel(report.period.from)} to {dayLabel(report.period.to)}, compared with {previous}.
      </p>
      <section aria-labelledby="totals-heading">
        <h2 id="totals-heading">Totals</h2>
        <dl class="totals">
          <div>
            <dt>Posts published</dt>
            <dd data-total="posts">{number.format(report.totals.posts)}</dd>
            <dd class="change">{change(report.change.posts)}</dd>
          </div>
          <div>
            <dt>Engagement</dt>
            <dd data-total="engagement">{number.format(report.totals.engagement)}</dd>
            <dd class="change">{change(report.change.engagement)}</dd>
          </div>
          <div>
            <dt>Reach (impressions or views)</dt>
            <dd data-total="reach">{report.totals.reach === null ? '—' : number.format(report.totals.reach)}</dd>
            <dd class="change">{change(report.change.reach)}</dd>
          </div>
          <div>
            <dt>Engagement rate</dt>
            <dd data-total="rate">{rate(report.totals)}</dd>
            <dd class="change">was {rate(report.previousTotals)}</dd>
          </div>
        </dl>
      </section>
      {report.totals.posts === 0 ? (
        <Empty>No posts were published in this period. Pick a longer period, or another channel or label.</Empty>
      ) : null}
      <Audience report={report} names={names} />
      <Heatmap report={report} />
      <section aria-labelledby="top-heading">
        <h2 id="top-heading">Top posts</h2>
        {report.topPosts.length === 0 ? (
          <Empty>No posts to rank yet.</Empty>
        ) : (
          <ol class="top-posts">
            {report.topPosts.map((post) => (
              <li key={post.postId}>
                {post.imageUrl ? (
                  <img src={post.imageUrl} alt="" width={56} height={56} loading="lazy" />
                ) : (
                  <span class="no-picture" aria-hidden="true" />
                )}
                <div>
                  <Link href={`/app/posts/${encodeURIComponent(post.postId)}`}>
                    {post.text.slice(0, 120) || 'A post without text'}
                  </Link>
                  <p class="meta">
                    {post.channelName} · {new Date(post.publishedAt).toLocaleString()} ·{' '}
                    <strong>{number.format(post.engagement)}</strong> engagement
                    {post.reach === null ? '' : ` · ${number.format(post.reach)} reach`}
                    {post.labelIds.length
                      ? ` · ${post.labelIds.map((id) => props.labelNames.get(id) ?? id).join(', ')}`
                      : ''}
                  </p>
                </div>
              </li>
            ))}
          </ol>
        )}
      </section>
      <Breakdown
        id="labels"
        title="By label"
        empty="No labels yet: label posts to see how each campaign did."
        rows={report.byLabel.map((l) => ({ key: l.labelId, name: l.name, totals: l.totals }))}
      />
      <Breakdown
        id="networks"
        title="By network"
        empty="No posts on any network in this period."
        rows={report.byNetwork.map((n) => ({ key: n.network, name: n.displayName, totals: n.totals }))}
      />
      <Breakdown
        id="channels"
        title="By channel"
        empty="No channels yet."
        rows={report.byChannel.map((c) => ({
          key: c.channelId,
          name: c.name,
          totals: c.totals,
          audience: [c.audienceStart, c.audienceEnd] as const,
        }))}
      />
      <BestTimesSection channels={report.byChannel.map((c) => ({ id: c.channelId, name: c.name }))} />
    </>
  );
}

function Audience(props: { report: Report; names: Map<string, string> }) {
  const { audience } = props.report;
  const points = audience.flatMap((a) => a.points.map((p) => p.at));
  const xs = [...new Set(points)].sort().map((at) => Date.parse(at) / 1000);
  const series = audience.map((a) => {
    const at = new Map(a.points.map((p) => [Date.parse(p.at) / 1000, p.followers]));
    return { label: props.names.get(a.channelId) ?? a.channelId, values: xs.map((x) => at.get(x) ?? null) };
  });
  return (
    <section aria-labelledby="audience-heading">
      <h2 id="audience-heading">Audience over time</h2>
      {audience.length === 0 ? (
        <Empty>None of these channels' networks reports followers, or none was read in this period yet.</Empty>
      ) : (
        <>
          <Chart
            label="Followers of each channel over the period; the table below has the same figures."
            xs={xs}
            series={series}
          />
          <details>
            <summary>Audience as a table</summary>
            <table>
              <caption class="visually-hidden">Followers by channel at each reading</caption>
              <thead>
                <tr>
                  <th scope="col">Channel</th>
                  <th scope="col">Read at</th>
                  <th scope="col">Followers</th>
                </tr>
              </thead>
              <tbody>
                {audience.flatMap((a) =>
                  a.points.map((p) => (
                    <tr key={`${a.channelId}${p.at}`}>
                      <td>{props.names.get(a.channelId) ?? a.channelId}</td>
                      <td>{new Date(p.at).toLocaleString()}</td>
                      <td>{number.format(p.followers)}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}

/** Weekdays by hours: a table whose cells are shaded by engagement, the figures in each cell. */
function Heatmap(props: { report: Report }) {
  const cells = new Map(props.report.byWeekdayHour.map((c) => [`${c.weekday}:${c.hour}`, c]));
  const most = Math.max(1, ...props.report.byWeekdayHour.map((c) => c.engagement));
  const hours = Array.from({ length: 24 }, (_, h) => h);
  return (
    <section aria-labelledby="heatmap-heading">
      <h2 id="heatmap-heading">When posts went out, and how they did</h2>
      <p class="hint">
        Each post counts in its channel's own time zone. A cell shows posts published then and their engagement; darker
        means more engagement.
      </p>
      <div class="heatmap-scroll" tabIndex={0} role="region" aria-label="Weekday by hour heat map, scrolls sideways">
        <table class="heatmap">
          <caption class="visually-hidden">Posts and engagement by weekday and hour</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {hours.map((h) => (
                <th key={h} scope="col" abbr={`${h}:00`}>
                  {String(h).padStart(2, '0')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {WEEKDAYS.map((day, d) => (
              <tr key={day}>
                <th scope="row">
                  {day.slice(0, 3)}
                  <span class="visually-hidden">{day.slice(3)}</span>
                </th>
                {hours.map((h) => {
                  const cell = cells.get(`${d}:${h}`);
                  const level = cell ? Math.ceil((cell.engagement / most) * 4) : 0;
                  return (
                    <td key={h} class={`heat l${level}`} data-cell={`${d}:${h}`}>
                      {cell ? (
                        <>
                          <span class="visually-hidden">{cell.posts} posts, </span>
                          <span aria-hidden="true">{cell.posts}</span>
                          <span class="visually-hidden">{cell.engagement} engagement</span>
                        </>
                      ) : null}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Breakdown(props: {
  id: string;
  title: string;
  empty: string;
  rows: { key: string; name: string; totals: Totals; audience?: readonly [number | null, number | null] }[];
}) {
  const withAudience = props.rows.some((r) => r.audience && r.audience[1] !== null);
  return (
    <section aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {props.rows.length === 0 ? (
        <Empty>{props.empty}</Empty>
      ) : (
        <div class="table-scroll" tabIndex={0} role="region" aria-label={`${props.title}, scrolls sideways`}>
          <table data-breakdown={props.id}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Posts</th>
                <th scope="col">Engagement</th>
                <th scope="col">Reach</th>
                <th scope="col">Rate</th>
                {withAudience ? <th scope="col">Followers</th> : null}
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">{row.name}</th>
                  <td>{number.format(row.totals.posts)}</td>
                  <td>{number.format(row.totals.engagement)}</td>
                  <td>{row.totals.reach === null ? '—' : number.format(row.totals.reach)}</td>
                  <td>{rate(row.totals)}</td>
                  {withAudience ? (
                    <td>
                      {row.audience?.[1] === null || !row.audience ? '—' : followers(row.audience[0], row.audience[1])}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function BestTimesSection(props: { channels: { id: string; name: string }[] }) {
  const ids = props.channels.map((c) => c.id);
  const found = useApi(
    async () =>
      Promise.all(
        ids.map(
          async (channelId) =>
            (await call(api.GET('/channels/{channelId}/best-times', { params: { path: { channelId } } }))).data,
        ),
      ),
    [ids.join(',')],
  );
  const names = new Map(props.channels.map((c) => [c.id, c.name]));
  return (
    <section aria-labelledby="best-heading">
      <h2 id="best-heading">When to post</h2>
      <Problem error={found.error} />
      {!found.data ? (
        <Loading label="Working out good times" />
      ) : (
        found.data.map((best: BestTimes) => (
          <div class="best" key={best.channelId}>
            <h3>{names.get(best.channelId) ?? best.channelId}</h3>
            <p>{best.note}</p>
            {best.windows.length === 0 ? null : (
              <ul>
                {best.windows.map((w) => (
                  <li key={`${w.weekday}:${w.hour}`}>
                    <strong>
                      {WEEKDAYS[w.weekday]}s, {String(w.hour).padStart(2, '0')}:00–
                      {String((w.hour + 1) % 24).padStart(2, '0')}:00
                    </strong>
                    , {zoneInWords(best.timezone)}: {w.lift}× the typical post. {w.note}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ))
      )}
    </section>
  );
}

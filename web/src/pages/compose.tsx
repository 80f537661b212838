/**
 * Compose: one text for several channels (each channel may have its own), media uploaded or from the library with
 * alt text, a first comment, labels, the chosen networks' options, a preview per channel, and when: now, at a time
 * in the person's zone, the queue, or a draft. The AI helpers change the text in place; nothing is saved until Save.
 *
 * Saving is what REST offers an integration: POST /posts (which ignores channelOptions, SPEC), then PATCH each post
 * with the options (applied on update) and POST its labels. If the options are refused the posts just made are
 * deleted again, so saving once more does not leave copies behind; if a label is refused the posts stand, and the
 * composer says so and offers them instead of a second Save.
 */
import { useState } from 'preact/hooks';
import type { components } from '../../../generated/sdk/index.js';
import { wallClockToUtc } from '../../../src/domain/zoned-time.js';
import { api, ApiError, call, toApiError } from '../api.js';
import { Link, navigate } from '../router.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { composeAt } from '../ui/compose-at.js';
import { browserTimeZone, formatTime } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import { MediaField, type ChosenMedia } from './compose/media-field.js';
import { Counter, PreviewCard, type Channel, type NetworkRow } from './compose/preview.js';
import './compose/compose.css';

type Label = components['schemas']['Label'];
type OptionRule = components['schemas']['ChannelOptionRule'];
type When = 'now' | 'schedule' | 'queue' | 'draft';

/** Fields the page shows problems beside; a problem about anything else is shown above the form. */
const FIELDS = ['channelIds', 'text', 'textByChannel', 'mediaIds', 'imageUrls', 'videoUrls', 'firstComment', 'channelOptions', 'dateTime', 'timezone', 'addToQueue', 'prompt'];

async function load() {
  const [channels, networks, labels] = await Promise.all([call(api.GET('/channels')), call(api.GET('/networks')), call(api.GET('/labels'))]);
  return {
    channels: channels.data.filter((c) => c.status !== 'disconnected'),
    rows: new Map(networks.data.map((n) => [n.name, n.capabilities])),
    labels: labels.data,
  };
}

export function ComposePage(props: { query: URLSearchParams }) {
  const { data, error } = useApi(load, []);
  return (
    <Page title="Compose">
      <Problem error={error} />
      {!data && !error && <Loading label="Loading your channels" rows={8} />}
      {data && data.channels.length === 0 && (
        <Empty><p>No channels to post to yet. Connect one on the <Link href="/app/channels">Channels page</Link>, then come back to write.</p></Empty>
      )}
      {data && data.channels.length > 0 && (
        <Composer channels={data.channels} rows={data.rows} labels={data.labels} at={composeAt(props.query)} />
      )}
    </Page>
  );
}

/** A wall-clock "2030-01-07T09:30" in `timeZone` as an ISO instant; a problem in words otherwise. */
function toInstant(local: string, timeZone: string): { iso: string } | { problem: { field: 'dateTime' | 'timezone'; message: string } } {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return { problem: { field: 'dateTime', message: 'Choose the date and time to publish at.' } };
  const [, y, mo, d, h, mi] = match.map(Number);
  try {
    return { iso: new Date(wallClockToUtc(timeZone, Date.UTC(y, mo - 1, d, h, mi))).toISOString() };
  } catch {
    return { problem: { field: 'timezone', message: `${timeZone} is not a time zone Herald knows; use a name like Europe/Berlin or America/New_York.` } };
  }
}

function Composer(props: {
  channels: Channel[]; rows: Map<string, NetworkRow>; labels: Label[]; at?: ReturnType<typeof composeAt>;
}) {
  const { channels, rows, labels } = props;
  const [chosenIds, setChosenIds] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [ownText, setOwnText] = useState<Record<string, string>>({});
  const [media, setMedia] = useState<ChosenMedia[]>([]);
  const [firstComment, setFirstComment] = useState('');
  const [labelIds, setLabelIds] = useState<string[]>([]);
  const [options, setOptions] = useState<Record<string, Record<string, string>>>({});
  // Opened from a day or hour of the calendar: scheduled at that time, in the zone the calendar showed.
  const [when, setWhen] = useState<When>(props.at ? 'schedule' : 'now');
  const [dateTime, setDateTime] = useState(props.at?.dateTime ?? '');
  const [timeZone, setTimeZone] = useState(props.at?.timeZone ?? browserTimeZone);
  const [prompt, setPrompt] = useState('');
  const [assisted, setAssisted] = useState('');
  const [asking, setAsking] = useState<string | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const [savedWithoutLabels, setSavedWithoutLabels] = useState<{ postId: string; why: string } | undefined>(undefined);
  const [refusal, setRefusal] = useState<ApiError | undefined>(undefined);

  const chosen = channels.filter((c) => chosenIds.includes(c.id));
  const chosenNetworks = [...new Set(chosen.map((c) => c.network))].filter((n) => rows.has(n));
  const problemsAt = (field: string) => refusal?.problemsAt(field) ?? [];
  const elsewhere = refusal
    ? (refusal.details.length === 0 ? [refusal.message] : refusal.details.filter((d) => !FIELDS.some((f) => refusal.problemsAt(f).includes(d.message))).map((d) => d.message))
    : [];

  /** The chosen networks' typed options (alt text comes from the media) as one channelOptions object. */
  function channelOptions(): Record<string, unknown> | undefined {
    const result: Record<string, unknown> = {};
    for (const network of chosenNetworks) {
      for (const rule of rows.get(network)!.channelOptions) {
        const value = options[network]?.[rule.name];
        if (value === undefined || value === '') continue;
        result[rule.name] = rule.type === 'boolean' ? value === 'true' : rule.type === 'string[]' ? value.split(',').map((v) => v.trim()).filter(Boolean) : value;
      }
    }
    const takesAltText = chosenNetworks.some((n) => rows.get(n)!.channelOptions.some((rule) => rule.name === 'altText'));
    const altTexts = media.filter((m) => m.media.kind === 'image').map((m) => m.altText.trim());
    if (takesAltText && altTexts.some((alt) => alt !== '')) result.altText = altTexts;
    return Object.keys(result).length > 0 ? result : undefined;
  }

  function local(field: string, message: string) {
    setRefusal(new ApiError(400, 'invalid_request', message, [{ path: field, message }]));
  }

  async function save(event: Event) {
    event.preventDefault();
    if (saving) return;
    setRefusal(undefined);
    if (chosenIds.length === 0) return local('channelIds', 'Choose at least one channel to publish to.');
    let timing: { isScheduled?: boolean; dateTime?: string; addToQueue?: boolean; saveAsDraft?: boolean } = {};
    if (when === 'schedule') {
      const instant = toInstant(dateTime, timeZone.trim() || 'UTC');
      if ('problem' in instant) return local(instant.problem.field, instant.problem.message);
      timing = { isScheduled: true, dateTime: instant.iso };
    } else if (when === 'queue') timing = { addToQueue: true };
    else if (when === 'draft') timing = { saveAsDraft: true };
    // Only the chosen channels' own texts: one typed for a channel then unticked is not an error.
    const own = Object.fromEntries(Object.entries(ownText).filter(([id, value]) => chosenIds.includes(id) && value.trim() !== ''));
    const opts = channelOptions();
    const body = {
      channelIds: chosenIds,
      text,
      ...(Object.keys(own).length > 0 ? { textByChannel: own } : {}),
      ...(media.length > 0 ? { mediaIds: media.map((m) => m.media.id) } : {}),
      ...(firstComment.trim() !== '' ? { firstComment: { text: firstComment } } : {}),
      // Options apply on update: the posts wait as drafts until they have them.
      ...(opts ? { saveAsDraft: true } : timing),
    };
    setSaving(true);
    try {
      const created = (await call(api.POST('/posts', { body }))).data;
      if (opts) {
        const then = when === 'now' ? { isScheduled: false } : timing;
        try {
          for (const post of created) {
            await call(api.PATCH('/posts/{postId}', { params: { path: { postId: post.id } }, body: { channelOptions: opts, ...then } }));
          }
        } catch (refused) {
          for (const post of created) await call(api.DELETE('/posts/{postId}', { params: { path: { postId: post.id } } })).catch(() => undefined);
          throw refused;
        }
      }
      try {
        if (labelIds.length > 0) {
          for (const post of created) await call(api.POST('/posts/{postId}/labels', { params: { path: { postId: post.id } }, body: { labelIds } }));
        }
      } catch (refused) {
        setSavedWithoutLabels({ postId: created[0].id, why: toApiError(refused).message });
        return;
      }
      navigate(`/app/posts/${encodeURIComponent(created[0].id)}`);
    } catch (caught) {
      setRefusal(toApiError(caught));
      setSaving(false);
    }
  }

  /** Runs one AI helper; its refusal is shown beside the field it concerns. */
  async function ask(what: string, field: 'text' | 'prompt', work: () => Promise<string>) {
    setRefusal(undefined);
    setAssisted('');
    setAsking(what);
    try {
      setAssisted(await work());
    } catch (caught) {
      const error = toApiError(caught);
      setRefusal(error.details.length > 0 ? new ApiError(error.status, error.code, error.message, error.details.map((d) => ({ ...d, path: field }))) : new ApiError(error.status, error.code, error.message, [{ path: field, message: error.message }]));
    } finally {
      setAsking(undefined);
    }
  }

  const needText = () => {
    if (text.trim() === '') throw new ApiError(400, 'invalid_request', 'Write some text first; the helper works on it.');
  };
  const needPrompt = () => {
    if (prompt.trim() === '') throw new ApiError(400, 'invalid_request', 'Describe what to write or draw first.');
  };
  const hashtags = () => ask('hashtags', 'text', async () => {
    needText();
    const answer = await call(api.POST('/ai/hashtags', { body: { text, ...(chosenNetworks[0] ? { network: chosenNetworks[0] } : {}) } }));
    setText(`${text.trimEnd()}\n\n${answer.hashtags.join(' ')}`);
    return `Hashtags suggested by ${answer.provider}.`;
  });
  const fitTo = (network: string) => ask(`rewrite:${network}`, 'text', async () => {
    needText();
    const answer = await call(api.POST('/ai/rewrites', { body: { text, instruction: `Fit this post to ${network}.`, network } }));
    setText(answer.text);
    return `Rewritten to fit ${rows.get(network)?.displayName ?? network} (${answer.characters} of ${answer.maxCharacters} characters) by ${answer.provider}.`;
  });
  const draft = () => ask('draft', 'prompt', async () => {
    needPrompt();
    const answer = await call(api.POST('/ai/post-drafts', { body: { prompt, ...(chosenNetworks[0] ? { network: chosenNetworks[0] } : {}) } }));
    setText(answer.variants[0].text);
    return `Drafted for ${rows.get(answer.network)?.displayName ?? answer.network} (${answer.variants[0].characters} of ${answer.maxCharacters} characters) by ${answer.provider}.`;
  });
  const image = () => ask('image', 'prompt', async () => {
    needPrompt();
    const answer = await call(api.POST('/ai/images', { body: { prompt } }));
    setMedia((all) => [...all, { media: answer.data, altText: prompt.slice(0, 1500) }]);
    return `Image made by ${answer.provider} and added to the media; check its alt text.`;
  });

  const instant = when === 'schedule' ? toInstant(dateTime, timeZone.trim() || 'UTC') : undefined;
  const opts = channelOptions();
  return (
    <form class="composer" onSubmit={save} noValidate>
      {elsewhere.map((message) => <p class="problem" role="alert" key={message}>{message}</p>)}
      <div class="compose-grid">
        <div class="compose-main">
          <fieldset aria-describedby="channel-problems">
            <legend>Channels</legend>
            {channels.map((c) => (
              <label key={c.id} class="choice">
                <input type="checkbox" name="channelIds" value={c.id} checked={chosenIds.includes(c.id)}
                  onChange={(event) => { const on = event.currentTarget.checked; setChosenIds((ids) => (on ? [...ids, c.id] : ids.filter((id) => id !== c.id))); }} />
                {' '}{c.displayName ?? c.name} <small class="muted">({rows.get(c.network)?.displayName ?? c.network} {c.handle})</small>
                {c.status === 'needs_reconnect' && <strong class="problem"> needs reconnecting</strong>}
              </label>
            ))}
            <FieldProblems error={refusal} field={'channelIds'} id="channel-problems" />
          </fieldset>

          <label for="text">Text</label>
          <textarea id="text" name="text" value={text} aria-describedby="counters text-problems" onInput={(event) => setText(event.currentTarget.value)} />
          <p id="counters" class="counters" aria-live="polite">
            {chosenNetworks.length === 0 ? <span class="muted">Choose a channel to see its network's count.</span> : chosenNetworks.map((n) => <Counter key={n} row={rows.get(n)!} text={text} />)}
          </p>
          <FieldProblems error={refusal} field={'text'} id="text-problems" />

          <details open={Object.values(ownText).some((v) => v !== '') || problemsAt('textByChannel').length > 0}>
            <summary>A different text for one channel</summary>
            {chosen.length === 0 && <p class="muted">Choose channels first; each can then have its own text in place of the one above.</p>}
            {chosen.map((c) => (
              <div key={c.id} class="own-text">
                <label for={`text-for-${c.id}`}>Text for {c.displayName ?? c.name} ({rows.get(c.network)?.displayName ?? c.network}), in place of the one above</label>
                <textarea id={`text-for-${c.id}`} class="short" value={ownText[c.id] ?? ''} aria-describedby={`text-for-${c.id}-problems`}
                  onInput={(event) => { const value = event.currentTarget.value; setOwnText((all) => ({ ...all, [c.id]: value })); }} />
                {(ownText[c.id] ?? '') !== '' && rows.has(c.network) && <Counter row={rows.get(c.network)!} text={ownText[c.id]} />}
                <FieldProblems error={refusal} field={`textByChannel.${c.id}`} id={`text-for-${c.id}-problems`} />
              </div>
            ))}
          </details>

          <section class="assist" aria-labelledby="assist-title">
            <h2 id="assist-title">AI helpers</h2>
            <p class="muted">They change the text above or add an image; nothing is saved until you save.</p>
            <p class="assist-buttons">
              <button type="button" value="hashtags" onClick={hashtags} disabled={asking !== undefined}>Suggest hashtags</button>
              {chosenNetworks.map((n) => (
                <button type="button" key={n} value={`rewrite:${n}`} onClick={() => fitTo(n)} disabled={asking !== undefined}>Fit to {rows.get(n)!.displayName}</button>
              ))}
            </p>
            <label for="prompt">Or ask for a draft or an image</label>
            <input id="prompt" name="prompt" maxLength={1000} value={prompt} aria-describedby="prompt-problems" onInput={(event) => setPrompt(event.currentTarget.value)} />
            <FieldProblems error={refusal} field={'prompt'} id="prompt-problems" />
            <p class="assist-buttons">
              <button type="button" value="draft" onClick={draft} disabled={asking !== undefined}>Draft the text</button>
              <button type="button" value="image" onClick={image} disabled={asking !== undefined}>Make an image</button>
            </p>
            <p id="assisted" role="status" class="assisted">{asking ? 'Asking the AI provider…' : assisted}</p>
          </section>

          <MediaField chosen={media} onChange={setMedia} problems={[...problemsAt('mediaIds'), ...problemsAt('imageUrls'), ...problemsAt('videoUrls')]} />

          <fieldset>
            <legend>Labels</legend>
            {labels.length === 0 && <p class="muted">No labels yet. Labels are made through the API (POST /labels) or an assistant's label tools; they then show here to tick.</p>}
            {labels.map((l) => (
              <label key={l.id} class="choice">
                <input type="checkbox" name="labelIds" value={l.id} checked={labelIds.includes(l.id)}
                  onChange={(event) => { const on = event.currentTarget.checked; setLabelIds((ids) => (on ? [...ids, l.id] : ids.filter((id) => id !== l.id))); }} />
                {' '}<span class="label-swatch" style={{ background: l.color }} aria-hidden="true" /> {l.name}
              </label>
            ))}
          </fieldset>

          <label for="firstComment">First comment (optional: posted under the post where the network allows it)</label>
          <textarea id="firstComment" class="short" value={firstComment} aria-describedby="firstComment-problems" onInput={(event) => setFirstComment(event.currentTarget.value)} />
          <FieldProblems error={refusal} field={'firstComment'} id="firstComment-problems" />

          {chosenNetworks.some((n) => rows.get(n)!.channelOptions.some((rule) => rule.name !== 'altText')) && (
            <fieldset aria-describedby="options-problems">
              <legend>Network options</legend>
              {chosenNetworks.map((network) => rows.get(network)!.channelOptions.filter((rule) => rule.name !== 'altText').map((rule) => (
                <OptionField key={`${network}.${rule.name}`} network={network} networkName={rows.get(network)!.displayName} rule={rule}
                  value={options[network]?.[rule.name] ?? ''}
                  onChange={(value) => setOptions((all) => ({ ...all, [network]: { ...all[network], [rule.name]: value } }))} />
              )))}
              <FieldProblems error={refusal} field={'channelOptions'} id="options-problems" />
            </fieldset>
          )}

          <fieldset aria-describedby="when-problems">
            <legend>When</legend>
            <label class="choice"><input type="radio" name="when" value="now" checked={when === 'now'} onChange={() => setWhen('now')} /> Publish now</label>
            <label class="choice"><input type="radio" name="when" value="schedule" checked={when === 'schedule'} onChange={() => setWhen('schedule')} /> Schedule at a time</label>
            {when === 'schedule' && (
              <div class="schedule">
                <label for="dateTime">Date and time</label>
                <input id="dateTime" name="dateTime" type="datetime-local" value={dateTime} aria-describedby="dateTime-problems" onInput={(event) => setDateTime(event.currentTarget.value)} />
                <FieldProblems error={refusal} field={'dateTime'} id="dateTime-problems" />
                <label for="timezone">In the time zone</label>
                <input id="timezone" name="timezone" value={timeZone} aria-describedby="timezone-problems" onInput={(event) => setTimeZone(event.currentTarget.value)} />
                <FieldProblems error={refusal} field={'timezone'} id="timezone-problems" />
                {instant && 'iso' in instant && chosen.length > 0 && (
                  <ul class="in-zones" aria-label="The same time where each channel posts">
                    {chosen.map((c) => <li key={c.id}>{c.displayName ?? c.name}: {formatTime(instant.iso, c.timezone)} ({c.timezone})</li>)}
                  </ul>
                )}
              </div>
            )}
            <label class="choice"><input type="radio" name="when" value="queue" checked={when === 'queue'} onChange={() => setWhen('queue')} /> Add to each channel's queue (its next free slot)</label>
            <label class="choice"><input type="radio" name="when" value="draft" checked={when === 'draft'} onChange={() => setWhen('draft')} /> Save as draft</label>
            <FieldProblems error={refusal} field={'addToQueue'} id="when-problems" />
          </fieldset>

          {savedWithoutLabels ? (
            <p class="save" role="alert">
              The posts are saved, without their labels ({savedWithoutLabels.why}). <Link href={`/app/posts/${encodeURIComponent(savedWithoutLabels.postId)}`}>Open them</Link>
            </p>
          ) : (
            <p class="save"><button type="submit" class="primary" disabled={saving}>{saving ? 'Saving…' : 'Save'}</button></p>
          )}
        </div>

        <section class="compose-previews" aria-labelledby="previews-title">
          <h2 id="previews-title">Preview per channel</h2>
          <div id="previews">
            {chosen.length === 0 && <p class="muted">Choose a channel to see how the post will look there.</p>}
            {chosen.filter((c) => rows.has(c.network)).map((c) => (
              <PreviewCard key={c.id} channel={c} row={rows.get(c.network)!} text={(ownText[c.id] ?? '').trim() !== '' ? ownText[c.id] : text}
                media={media} firstComment={firstComment} channelOptions={opts} />
            ))}
          </div>
        </section>
      </div>
    </form>
  );
}

/** One of a network's channelOptions as the capabilities table types it: a choice, yes/no, a list or a text. */
function OptionField(props: { network: string; networkName: string; rule: OptionRule; value: string; onChange: (value: string) => void }) {
  const { network, rule } = props;
  const id = `option.${network}.${rule.name}`;
  const label = `${props.networkName} ${rule.name}${rule.required ? ' (required)' : ''}: ${rule.description}`;
  const change = (event: { currentTarget: { value: string } }) => props.onChange(event.currentTarget.value);
  return (
    <div class="option">
      <label for={id}>{label}</label>
      {typeof rule.type === 'object' ? (
        <select id={id} name={id} value={props.value} onChange={change}>
          <option value="">(default)</option>
          {rule.type.oneOf.map((choice) => <option key={choice} value={choice}>{choice}</option>)}
        </select>
      ) : rule.type === 'boolean' ? (
        <select id={id} name={id} value={props.value} onChange={change}>
          <option value="">(default)</option><option value="true">yes</option><option value="false">no</option>
        </select>
      ) : (
        <input id={id} name={id} value={props.value} maxLength={rule.type === 'string[]' ? undefined : rule.maxLength} placeholder={rule.type === 'string[]' ? 'comma-separated' : undefined} onInput={change} />
      )}
    </div>
  );
}

/**
 * The channels: each with its status (and why, when it needs reconnecting or was disconnected), its time zone,
 * its queue, reconnect and disconnect (after a confirmation saying what happens to its posts); and connecting a
 * network: credentials networks sign in from the form, OAuth networks send the person to the network's consent
 * page (a navigation of the page, which the CSP's form-action does not govern), and a network this instance
 * cannot connect says what its operator must set. Channels that need reconnecting are named first, loudly.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { api, call, type ApiError, toApiError } from '../api.js';
import { Link } from '../router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { Empty, FieldProblems, Loading, Page, Problem, StatusBadge } from '../ui/page.js';
import { fieldLabel } from '../ui/problems.js';
import { networkName } from '../ui/network-name.js';
import { browserTimeZone, zoneInWords } from '../ui/time.js';
import { useUnsavedChanges } from '../ui/unsaved-changes.js';
import { useApi } from '../ui/use-api.js';
import './team-pages.css';

type Channel = components['schemas']['Channel'];
type Network = components['schemas']['Network'];
type Field = NonNullable<Network['connection']>['fields'][number];

const ZONES: readonly string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
let zoneOptions: { id: string; words: string }[] | undefined;
/** The zones offered in the time zone fields, each with its name in words; named once, on first use. */
const offeredZones = () => (zoneOptions ??= ZONES.map((id) => ({ id, words: zoneInWords(id) })));

async function load() {
  const [channels, networks] = await Promise.all([call(api.GET('/channels')), call(api.GET('/networks'))]);
  return { channels: channels.data, networks: networks.data };
}

const nameOf = (c: Channel) => c.displayName ?? c.name;

/** A network's consent page Herald warns about first (its media fetched from an address the network cannot reach). */
interface Consent {
  authorizationUrl: string;
  warning: string;
}

/**
 * After a connect or reconnect: the channel is there, or the person goes to the network to consent: at once, or
 * once they have read Herald's warning and chosen to go on (`warn`). `leaving` lets the form be left without asking.
 */
function followConnect(
  answer: { authorizationUrl: string; warning?: string } | { data: Channel[] },
  warn: (consent: Consent) => void,
  leaving: () => void,
): Channel[] | undefined {
  if (!('authorizationUrl' in answer)) return answer.data;
  if (answer.warning) warn({ authorizationUrl: answer.authorizationUrl, warning: answer.warning });
  else {
    leaving();
    location.assign(answer.authorizationUrl);
  }
  return undefined;
}

/** Herald's warning before the network's consent page, in place: go on to the network, or stop here. */
function BeforeConsent(props: { id: string; network: string; consent?: Consent; stop: () => void; go: () => void }) {
  const place = useRef<HTMLDivElement>(null);
  const going = useRef<HTMLButtonElement>(null);
  const stopped = useRef(false);
  const shown = props.consent !== undefined;
  // As ConfirmButton does: the question takes the focus, and Stop gives it back to the form's button.
  useLayoutEffect(() => {
    if (shown) going.current?.focus();
    else if (stopped.current) place.current?.closest('form')?.querySelector<HTMLElement>('[type=submit]')?.focus();
    stopped.current = false;
  }, [shown]);
  const stop = () => {
    stopped.current = true;
    props.stop();
  };
  if (!props.consent) return <div ref={place} />;
  return (
    <div
      ref={place}
      class="before-consent"
      role="group"
      aria-labelledby={`${props.id}-title`}
      aria-describedby={`${props.id}-warning`}
      onKeyDown={(event) => event.key === 'Escape' && stop()}
    >
      <p id={`${props.id}-title`}>
        <strong>Before you go to {props.network}</strong>
      </p>
      <p id={`${props.id}-warning`}>{props.consent.warning}</p>
      <button type="button" class="primary" ref={going} onClick={props.go}>
        Go on to {props.network}
      </button>{' '}
      <button type="button" onClick={stop}>
        Stop here
      </button>
    </div>
  );
}

export function ChannelsPage() {
  const { data, error, reload } = useApi(load, []);
  const [said, setSaid] = useState('');
  const byName = new Map((data?.networks ?? []).map((n) => [n.name, n]));
  const broken = (data?.channels ?? []).filter((c) => c.status === 'needs_reconnect');
  const connectable = (data?.networks ?? []).filter((n) => n.connection !== null);

  const report = { said: setSaid, reload };
  return (
    <Page title="Channels">
      <div role="status" aria-live="polite" class="said">
        {said && <p>{said}</p>}
      </div>
      <Problem error={error} />
      {broken.length > 0 && (
        <section class="alarm" role="alert" aria-labelledby="alarm-title">
          <h2 id="alarm-title">
            {broken.length === 1 ? 'A channel needs reconnecting' : `${broken.length} channels need reconnecting`}
          </h2>
          <p>
            Their posts fail until they are reconnected
            {broken.some((c) => byName.get(c.network)?.connection) ? ': reconnect each in its row below' : ''}.
          </p>
          <ul>
            {broken.map((c) => (
              <li key={c.id}>
                <strong>{nameOf(c)}</strong> ({networkName(c.network)}):{' '}
                {c.statusReason ?? 'the network refused its credentials'}
                {!byName.get(c.network)?.connection &&
                  ' (this network cannot be reconnected from the app: ask the person who runs this Herald).'}
              </li>
            ))}
          </ul>
        </section>
      )}
      {!data && !error && <Loading label="Loading the channels" rows={4} />}
      {data && data.channels.length === 0 && (
        <Empty>
          <p>
            No channels yet: connect one below, then write posts for it on <Link href="/app/compose">Compose</Link>.
          </p>
        </Empty>
      )}
      {data && data.channels.length > 0 && (
        <table class="channels stack">
          <caption class="visually-hidden">The account's channels</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Channel</th>
              <th scope="col">Time zone</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {data.channels.map((c) => (
              <ChannelRow key={c.id} channel={c} network={byName.get(c.network)} {...report} />
            ))}
          </tbody>
        </table>
      )}
      <datalist id="time-zones">
        {offeredZones().map((z) => (
          <option key={z.id} value={z.id} label={z.words} />
        ))}
      </datalist>
      <h2>Connect a channel</h2>
      {!data && !error && <Loading label="Loading the networks" rows={3} />}
      <div class="networks">
        {connectable
          .filter((n) => n.configured)
          .map((n) => (
            <ConnectNetwork key={n.name} network={n} {...report} />
          ))}
      </div>
      {connectable.some((n) => !n.configured) && (
        <>
          <h2>Networks not set up on this Herald</h2>
          <p class="muted">These networks need their app registered by the person who runs this Herald first.</p>
          <div class="networks">
            {connectable
              .filter((n) => !n.configured)
              .map((n) => (
                <ConnectNetwork key={n.name} network={n} {...report} />
              ))}
          </div>
        </>
      )}
    </Page>
  );
}

interface Report {
  said: (text: string) => void;
  reload: () => Promise<void>;
}

function ChannelRow(props: { channel: Channel; network?: Network } & Report) {
  const { channel: c, network } = props;
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<ApiError | undefined>(undefined);
  const [consent, setConsent] = useState<Consent>();
  const zoneChanges = useUnsavedChanges();
  const reconnectChanges = useUnsavedChanges();
  const connection = network?.connection;
  const path = { channelId: c.id };

  async function run(work: () => Promise<string | undefined>) {
    setBusy(true);
    setRefused(undefined);
    try {
      const text = await work();
      if (text) {
        await props.reload();
        props.said(text);
      }
    } catch (caught) {
      setRefused(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  const reconnect = (event: Event) => {
    event.preventDefault();
    const fields = Object.fromEntries(new FormData(event.currentTarget as HTMLFormElement)) as Record<string, string>;
    setConsent(undefined);
    void run(async () => {
      const answer = await call(api.POST('/channels/{channelId}/reconnect', { params: { path }, body: fields }));
      if (!followConnect(answer, setConsent, reconnectChanges.saved)) return undefined;
      reconnectChanges.saved();
      return `${nameOf(c)} is connected again.`;
    });
  };
  const disconnect = () =>
    run(async () => {
      const done = (await call(api.DELETE('/channels/{channelId}', { params: { path } }))).data;
      const drafts =
        done.draftedPostIds.length > 0
          ? ` Its ${done.draftedPostIds.length} scheduled or failed post(s) are drafts now.`
          : '';
      const revoked = done.revokedAtNetwork
        ? " Herald's access was revoked at the network."
        : done.revokeError
          ? ` The network could not be told (${done.revokeError}): remove Herald there yourself.`
          : '';
      return `${nameOf(c)} is disconnected.${drafts}${revoked}`;
    });
  const saveZone = (event: Event) => {
    event.preventDefault();
    const timezone = String(new FormData(event.currentTarget as HTMLFormElement).get('timezone') ?? '');
    void run(async () => {
      await call(api.PATCH('/channels/{channelId}', { params: { path }, body: { timezone } }));
      zoneChanges.saved();
      return `${nameOf(c)} now uses ${zoneInWords(timezone)}.`;
    });
  };

  const zoneId = `zone-${c.id}`;
  return (
    <tr class={c.status === 'needs_reconnect' ? 'needs-reconnect' : undefined} data-channel-id={c.id}>
      <td>
        <StatusBadge status={c.status ?? 'active'} />
        {c.statusReason && <p class="reason">{c.statusReason}</p>}
      </td>
      <td>
        <strong>{nameOf(c)}</strong>
        <br />
        <span class="muted">
          {networkName(c.network)} · {c.handle}
        </span>
      </td>
      <td>
        <form class="zone" ref={zoneChanges.form} onSubmit={saveZone}>
          <label for={zoneId} class="visually-hidden">
            Time zone of {nameOf(c)}
          </label>
          <input
            id={zoneId}
            name="timezone"
            list="time-zones"
            defaultValue={c.timezone}
            required
            size={16}
            autocomplete="off"
            aria-describedby={`${zoneId}-words${refused?.problemsAt('timezone').length ? ` ${zoneId}-problems` : ''}`}
          />{' '}
          <button type="submit" disabled={busy} aria-label={`Save the time zone of ${nameOf(c)}`}>
            Save
          </button>
          <FieldProblems error={refused} field="timezone" id={`${zoneId}-problems`} />
          <span id={`${zoneId}-words`} class="muted zone-words">
            {zoneInWords(c.timezone)}
          </span>
        </form>
      </td>
      <td class="actions">
        <Link href={`/app/channels/${encodeURIComponent(c.id)}/queue`} aria-label={`Queue of ${nameOf(c)}`}>
          Queue
        </Link>
        {c.status !== 'active' && connection && (
          <form class="reconnect" ref={reconnectChanges.form} onSubmit={reconnect}>
            {connection.fields
              .filter((f) => f.secret)
              .map((f) => (
                <FieldInput key={f.name} field={f} prefix={`re-${c.id}`} error={refused} />
              ))}
            <button
              type="submit"
              class={c.status === 'needs_reconnect' ? 'primary' : undefined}
              disabled={busy || consent !== undefined}
            >
              {connection.kind === 'oauth' ? `Reconnect at ${network!.displayName}` : 'Reconnect'}
            </button>
            <BeforeConsent
              id={`consent-${c.id}`}
              network={network!.displayName}
              consent={consent}
              stop={() => setConsent(undefined)}
              go={() => {
                reconnectChanges.saved();
                location.assign(consent!.authorizationUrl);
              }}
            />
          </form>
        )}
        {c.status !== 'disconnected' && connection && (
          <ConfirmButton
            label="Disconnect"
            ariaLabel={`Disconnect ${nameOf(c)}`}
            confirmLabel="Yes, disconnect"
            onConfirm={disconnect}
            question={`Disconnect ${nameOf(c)}? Herald's access is revoked and its scheduled posts become drafts.`}
          />
        )}
        {refused && refused.problemsAt('timezone').length === 0 && <Problem error={refused} />}
      </td>
    </tr>
  );
}

function FieldInput(props: { field: Field; prefix: string; error?: ApiError }) {
  const { field } = props;
  const id = `${props.prefix}-${field.name}`;
  const problems = props.error?.problemsAt(field.name) ?? [];
  return (
    <>
      <label for={id}>
        {fieldLabel(field.name)}
        {field.required ? '' : ' (optional)'} <span class="muted">{field.description}</span>
      </label>
      <input
        id={id}
        name={field.name}
        type={field.secret ? 'password' : 'text'}
        autocomplete="off"
        required={field.required}
        aria-invalid={problems.length > 0}
        aria-describedby={problems.length ? `${id}-problems` : undefined}
      />
      <FieldProblems error={props.error} field={field.name} id={`${id}-problems`} />
    </>
  );
}

function ConnectNetwork(props: { network: Network } & Report) {
  const { network: n } = props;
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<ApiError | undefined>(undefined);
  const [consent, setConsent] = useState<Consent>();
  const changes = useUnsavedChanges();
  const connect = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = Object.fromEntries(new FormData(form)) as Record<string, string>;
    setBusy(true);
    setRefused(undefined);
    setConsent(undefined);
    try {
      // A channel new to the account takes this browser's zone, also when it is made after the network's consent,
      // so its queue and calendar keep the person's hours from the start; one connected again keeps its own.
      const body = { ...fields, network: n.name, timezone: browserTimeZone };
      const answer = await call(api.POST('/channels/connect', { body }));
      const channels = followConnect(answer, setConsent, changes.saved);
      if (channels) {
        form.reset();
        changes.saved();
        await props.reload();
        const zones = [...new Set(channels.map((c) => zoneInWords(c.timezone)))].join(', ');
        const their = channels.length === 1 ? 'Its' : 'Their';
        const warning = 'warning' in answer && answer.warning ? ` ${answer.warning}` : '';
        props.said(`Connected ${channels.map(nameOf).join(', ')}. ${their} times are in ${zones}.${warning}`);
      }
    } catch (caught) {
      setRefused(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const fieldNames = new Set(n.connection!.fields.map((f) => f.name));
  return (
    <section class="connect" data-network={n.name} aria-labelledby={`network-${n.name}`}>
      <h3 id={`network-${n.name}`}>{n.displayName}</h3>
      {n.configured ? (
        <form onSubmit={connect} ref={changes.form}>
          {n.connection!.fields.map((f) => (
            <FieldInput key={f.name} field={f} prefix={`connect-${n.name}`} error={refused} />
          ))}
          {refused?.details.every((d) => !fieldNames.has(d.path.replace(/^body\./, ''))) && <Problem error={refused} />}
          <p>
            <button type="submit" class="primary" disabled={busy || consent !== undefined}>
              {n.connection!.kind === 'oauth' ? `Connect at ${n.displayName}` : 'Connect'}
            </button>
          </p>
          <BeforeConsent
            id={`consent-${n.name}`}
            network={n.displayName}
            consent={consent}
            stop={() => setConsent(undefined)}
            go={() => {
              changes.saved();
              location.assign(consent!.authorizationUrl);
            }}
          />
        </form>
      ) : (
        <p class="not-configured">{n.notConfigured ?? 'This instance cannot connect it yet.'}</p>
      )}
    </section>
  );
}

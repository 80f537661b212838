/**
 * Settings, Webhooks: the endpoints that receive the team's events. Add one (its signing secret shown once), rotate
 * the secret (the new one shown once), send a test event, delete it, and enable again one Herald disabled (the
 * reason shown, as in the banner on every page). Managers only: an endpoint sends the workspace's activity elsewhere.
 */
import { useState } from 'preact/hooks';
import { api, call, type ApiError, toApiError } from '../api.js';
import type { components } from '../../../sdk/src/index.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { OneTimeSecret } from '../ui/one-time-secret.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { formatTime } from '../ui/time.js';
import { useUnsavedChanges } from '../ui/unsaved-changes.js';
import { useApi } from '../ui/use-api.js';
import { ManagersOnly, SettingsNav, useManages } from './settings-nav.js';

type EventType = components['schemas']['EventType'];
type Endpoint = components['schemas']['WebhookEndpoint'];

/**
 * Every event type in people's words, in the order docs/webhooks.md's catalogue lists them (with each type's name,
 * which the receiver's code is written against); the Record's type keeps it whole.
 */
const EVENT_WORDS: Record<EventType, string> = {
  'post.created': 'A post is created',
  'post.scheduled': 'A post is scheduled',
  'post.published': 'A post is published',
  'post.failed': 'A post fails to publish',
  'post.unconfirmed': 'A network cannot confirm a post went out',
  'post.at_risk': 'A scheduled post is at risk',
  'post.risk_cleared': 'A post is no longer at risk',
  'post.deleted': 'A post is deleted',
  'post.first_comment.published': 'A first comment is published',
  'post.first_comment.failed': 'A first comment fails',
  'post.thread.published': 'A thread is published',
  'post.thread.failed': 'A thread fails',
  'approval.requested': 'Approval is asked for',
  'approval.approved': 'A post is approved',
  'approval.rejected': 'A post is rejected',
  'approval.assigned': 'A reviewer is assigned',
  'channel.connected': 'A channel is connected',
  'channel.needs_reconnect': 'A channel needs reconnecting',
  'channel.disconnected': 'A channel is disconnected',
  'queue.paused': 'A queue is paused',
  'queue.resumed': 'A queue is resumed',
  'live_post.found': 'A post made outside Herald is found',
  'webhook.disabled': 'An endpoint is turned off after failures',
  'webhook.test': 'A test delivery',
  'insights.weekly': 'The weekly insights digest',
};
const EVENT_TYPES = Object.keys(EVENT_WORDS) as EventType[];

async function load() {
  const [webhooks, workspaces] = await Promise.all([call(api.GET('/webhooks')), call(api.GET('/workspaces'))]);
  return { endpoints: webhooks.data, workspaces: workspaces.data };
}

function AddEndpoint(props: {
  workspaces: components['schemas']['Workspace'][];
  onAdded: (url: string, secret: string) => void;
}) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<EventType[]>([]);
  const [workspaceId, setWorkspaceId] = useState(props.workspaces[0]?.id ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const changes = useUnsavedChanges();
  const toggle = (type: EventType, on: boolean) =>
    setTypes((now) => (on ? [...now, type] : now.filter((t) => t !== type)));
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = {
        url,
        eventTypes: EVENT_TYPES.filter((t) => types.includes(t)),
        workspaceId,
        ...(description.trim() ? { description: description.trim() } : {}),
      };
      const { data } = await call(api.POST('/webhooks', { body }));
      props.onAdded(data.url, data.secret);
      setUrl('');
      setDescription('');
      setTypes([]);
      changes.saved();
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const urlProblems = error?.problemsAt('url') ?? [];
  const typeProblems = error?.problemsAt('eventTypes') ?? [];
  return (
    <form
      class="settings-form"
      id="add-webhook"
      ref={changes.form}
      onSubmit={submit}
      aria-labelledby="add-webhook-heading"
    >
      <h2 id="add-webhook-heading">Add an endpoint</h2>
      <label for="url">URL</label>
      <input
        id="url"
        type="url"
        required
        maxLength={2000}
        value={url}
        onInput={(e) => setUrl(e.currentTarget.value)}
        placeholder="https://hooks.example.com/herald"
        aria-invalid={urlProblems.length > 0}
        aria-describedby={urlProblems.length > 0 ? 'url-problems' : undefined}
      />
      <FieldProblems error={error} field="url" id="url-problems" />
      <label for="webhook-description">
        Description <span class="muted">(optional)</span>
      </label>
      <input
        id="webhook-description"
        type="text"
        maxLength={500}
        value={description}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      {props.workspaces.length > 1 && (
        <>
          <label for="webhook-workspace">Workspace</label>
          <select id="webhook-workspace" value={workspaceId} onChange={(e) => setWorkspaceId(e.currentTarget.value)}>
            {props.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </>
      )}
      <fieldset aria-describedby={typeProblems.length > 0 ? 'event-types-problems' : undefined}>
        <legend>Events to send</legend>
        <div class="checks">
          {EVENT_TYPES.map((type) => (
            <label key={type}>
              <input
                type="checkbox"
                name="eventTypes"
                value={type}
                checked={types.includes(type)}
                onChange={(e) => toggle(type, e.currentTarget.checked)}
              />{' '}
              {EVENT_WORDS[type]}
            </label>
          ))}
        </div>
      </fieldset>
      <FieldProblems error={error} field="eventTypes" id="event-types-problems" />
      {error && urlProblems.length === 0 && typeProblems.length === 0 && <Problem error={error} />}
      <p>
        <button type="submit" class="primary" disabled={busy}>
          Add endpoint
        </button>
      </p>
    </form>
  );
}

function EndpointRow(props: {
  endpoint: Endpoint;
  workspace: string | undefined;
  act: (run: () => Promise<string>) => Promise<void>;
  onSecret: (url: string, secret: string) => void;
}) {
  const e = props.endpoint;
  const path = { params: { path: { webhookId: e.id } } };
  return (
    <tr>
      <td data-label="URL">
        {e.url}
        {e.description && (
          <>
            <br />
            <small class="muted">{e.description}</small>
          </>
        )}
        {props.workspace && (
          <>
            <br />
            <small class="muted">{props.workspace}</small>
          </>
        )}
      </td>
      <td data-label="Events">{e.eventTypes.map((type) => EVENT_WORDS[type]).join('; ')}</td>
      <td data-label="State">
        {e.enabled ? (
          <span class="status published">enabled</span>
        ) : (
          <>
            <span class="status failed">disabled</span> <span class="problem">{e.disabledReason ?? 'paused'}</span>
          </>
        )}
        {e.enabled && e.failingSince && (
          <>
            <br />
            <small class="problem">failing since {formatTime(e.failingSince)}</small>
          </>
        )}
      </td>
      <td>
        <div class="row-actions">
          {!e.enabled && (
            <button
              type="button"
              aria-label={`Enable again: ${e.url}`}
              onClick={() =>
                props.act(async () => {
                  await call(api.PATCH('/webhooks/{webhookId}', { ...path, body: { enabled: true } }));
                  return `${e.url} is enabled again: its pending deliveries resume.`;
                })
              }
            >
              Enable again
            </button>
          )}
          {e.enabled && (
            <button
              type="button"
              aria-label={`Send test to ${e.url}`}
              onClick={() =>
                props.act(async () => {
                  await call(api.POST('/webhooks/{webhookId}/test', path));
                  return (
                    `A test delivery is on its way to ${e.url}; ` +
                    "it arrives within seconds, signed with the endpoint's secret."
                  );
                })
              }
            >
              Send test
            </button>
          )}
          <button
            type="button"
            aria-label={`Rotate secret of ${e.url}`}
            onClick={() =>
              props.act(async () => {
                const { data } = await call(api.POST('/webhooks/{webhookId}/rotate-secret', path));
                props.onSecret(data.url, data.secret);
                return '';
              })
            }
          >
            Rotate secret
          </button>
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete ${e.url}`}
            question={`Delete ${e.url}? It receives nothing more.`}
            confirmLabel="Yes, delete"
            onConfirm={() =>
              props.act(async () => {
                await call(api.DELETE('/webhooks/{webhookId}', path));
                return `${e.url} is deleted.`;
              })
            }
          />
        </div>
      </td>
    </tr>
  );
}

export function WebhooksPage() {
  const manages = useManages();
  const { data, error, reload } = useApi(() => (manages ? load() : Promise.resolve(undefined)), [manages]);
  const [secret, setSecret] = useState<{ url: string; value: string }>();
  const [notice, setNotice] = useState('');
  const [refusal, setRefusal] = useState<ApiError>();
  const act = async (run: () => Promise<string>) => {
    setRefusal(undefined);
    setNotice('');
    setSecret(undefined);
    let said = '';
    try {
      said = await run();
    } catch (caught) {
      setRefusal(toApiError(caught));
    }
    // The list is asked for again before the notice shows, so the two never disagree on screen.
    await reload();
    setNotice(said);
  };
  const showSecret = (url: string, value: string) => setSecret({ url, value });
  return (
    <Page title="Webhooks">
      <SettingsNav />
      <p>
        Herald sends the events you choose to your endpoints as signed JSON (Standard Webhooks), retrying each event for
        a day; an endpoint that fails for three days, or answers 410 Gone, is disabled until you enable it again.
      </p>
      {manages === undefined && <Loading label="Loading the webhook endpoints" rows={3} />}
      {manages === false && (
        <ManagersOnly>
          Webhooks send the team's activity to other services, so only a manager adds or changes them.
        </ManagersOnly>
      )}
      {manages && (
        <>
          {secret && (
            <OneTimeSecret id="secret" value={secret.value}>
              The signing secret of {secret.url}, shown this once: store it with the receiver, which checks each
              delivery's signature with it.
            </OneTimeSecret>
          )}
          <p role="status" class="saved">
            {notice}
          </p>
          <Problem error={error ?? refusal} />
          {!data && !error && <Loading label="Loading the webhook endpoints" rows={3} />}
          {data && data.endpoints.length === 0 && (
            <Empty>
              <p>No endpoints yet: add one below to hear when a post is published or fails.</p>
            </Empty>
          )}
          {data && data.endpoints.length > 0 && (
            <table id="webhooks" class="stack">
              <caption class="visually-hidden">Webhook endpoints</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.endpoints.map((e) => (
                  <EndpointRow
                    key={e.id}
                    endpoint={e}
                    act={act}
                    onSecret={showSecret}
                    workspace={
                      data.workspaces.length > 1 ? data.workspaces.find((w) => w.id === e.workspaceId)?.name : undefined
                    }
                  />
                ))}
              </tbody>
            </table>
          )}
          {data && (
            <AddEndpoint
              workspaces={data.workspaces}
              onAdded={(url, value) => {
                setNotice('');
                showSecret(url, value);
                void reload();
              }}
            />
          )}
        </>
      )}
    </Page>
  );
}

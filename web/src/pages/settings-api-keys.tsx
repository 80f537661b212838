/**
 * Settings, API keys: create a key for an integration (shown once, with a Copy button), see each key's scopes and
 * last use, and revoke one (it stops working at once). Managers see and revoke every key of the account, and may
 * give a key manage_team; the server decides both. Below, the addresses to use a key at and the configurations of
 * the common MCP clients (settings-connect-clients.tsx), holding the key just created while it is on screen.
 */
import { useState } from 'preact/hooks';
import { api, call, type ApiError, toApiError } from '../api.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { OneTimeSecret } from '../ui/one-time-secret.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { formatTime } from '../ui/time.js';
import { useUnsavedChanges } from '../ui/unsaved-changes.js';
import { useApi } from '../ui/use-api.js';
import { ConnectClients } from './settings-connect-clients.js';
import { SettingsNav, useManages } from './settings-nav.js';

function CreateKey(props: { manages: boolean; onCreated: (name: string, key: string) => void }) {
  const [name, setName] = useState('');
  const [manageTeam, setManageTeam] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const changes = useUnsavedChanges();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { data } = await call(
        api.POST('/api-keys', {
          body: { name: name.trim(), ...(manageTeam ? { scopes: ['manage_team' as const] } : {}) },
        }),
      );
      props.onCreated(data.name, data.key);
      setName('');
      setManageTeam(false);
      changes.saved();
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const nameProblems = error?.problemsAt('name') ?? [];
  return (
    <form
      class="settings-form"
      id="create-key"
      ref={changes.form}
      onSubmit={submit}
      aria-labelledby="create-key-heading"
    >
      <h2 id="create-key-heading">Create a key</h2>
      <label for="key-name">What it is for</label>
      <input
        id="key-name"
        type="text"
        required
        maxLength={100}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
        placeholder="e.g. Zapier, or curl from my laptop"
        aria-invalid={nameProblems.length > 0}
        aria-describedby={nameProblems.length > 0 ? 'key-name-problems' : undefined}
      />
      <FieldProblems error={error} field="name" id="key-name-problems" />
      <p class="muted">Every key reads the profile and manages posts.</p>
      {props.manages && (
        <label class="inline">
          <input
            type="checkbox"
            name="manageTeam"
            checked={manageTeam}
            onChange={(e) => setManageTeam(e.currentTarget.checked)}
          />{' '}
          Also manage the team (approvals, bulk changes, members, webhooks)
        </label>
      )}
      {error && nameProblems.length === 0 && <Problem error={error} />}
      <p>
        <button type="submit" class="primary" disabled={busy}>
          Create key
        </button>
      </p>
    </form>
  );
}

/** The keys, and who made each: a manager sees every member's keys. */
async function load() {
  const [keys, members] = await Promise.all([call(api.GET('/api-keys')), call(api.GET('/members'))]);
  const names = new Map(members.data.map((m) => [m.userId, m.name || m.email]));
  return keys.data.map((key) => ({ ...key, createdBy: names.get(key.userId) ?? 'a former member' }));
}

export function ApiKeysPage() {
  const manages = useManages();
  const { data, error, reload } = useApi(load, []);
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const [refusal, setRefusal] = useState<ApiError>();
  const [notice, setNotice] = useState('');
  const revoke = async (id: string, name: string) => {
    try {
      await call(api.DELETE('/api-keys/{keyId}', { params: { path: { keyId: id } } }));
      await reload();
      setRefusal(undefined);
      setNotice(`The key “${name}” is revoked: calls with it are refused from now on.`);
    } catch (caught) {
      setRefusal(toApiError(caught));
    }
  };
  return (
    <Page title="API keys">
      <SettingsNav />
      <p>
        An API key acts as you on the REST API and the MCP server: send <code>Authorization: Bearer &lt;key&gt;</code>.
        Create one per integration, so you can revoke one without the others. Every route, with what it takes and
        answers, is in the <a href="/docs">API reference</a>.
      </p>
      {created && (
        <OneTimeSecret id="new-key" value={created.key}>
          The key “{created.name}”, shown this once: copy it now, Herald keeps only its hash.
        </OneTimeSecret>
      )}
      <p role="status" class="saved">
        {notice}
      </p>
      <Problem error={error ?? refusal} />
      {!data && !error && <Loading label="Loading your API keys" rows={3} />}
      {data && data.length === 0 && (
        <Empty>
          <p>No keys yet: create one below for the integration that will use it.</p>
        </Empty>
      )}
      {data && data.length > 0 && (
        <table id="api-keys" class="stack">
          <caption class="visually-hidden">API keys{manages ? ' of the account' : ' you created'}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              {manages && <th scope="col">Created by</th>}
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">State</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.map((k) => (
              <tr key={k.id}>
                <td data-label="Name">{k.name}</td>
                <td data-label="Key">
                  <code>{k.prefix}…</code>
                </td>
                <td data-label="Scopes">{k.scopes.join(', ')}</td>
                {manages && <td data-label="Created by">{k.createdBy}</td>}
                <td data-label="Created">{formatTime(k.createdAt)}</td>
                <td data-label="Last used">{k.lastUsedAt ? formatTime(k.lastUsedAt) : 'never'}</td>
                <td>
                  {k.revokedAt ? (
                    <span class="status failed">revoked {formatTime(k.revokedAt)}</span>
                  ) : (
                    <ConfirmButton
                      label="Revoke"
                      ariaLabel={`Revoke ${k.name}`}
                      question={`Revoke “${k.name}”? Integrations using it stop working.`}
                      confirmLabel="Yes, revoke"
                      onConfirm={() => revoke(k.id, k.name)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manages !== undefined && (
        <CreateKey
          manages={manages}
          onCreated={(name, key) => {
            setCreated({ name, key });
            setNotice('');
            void reload();
          }}
        />
      )}
      <ConnectClients apiKey={created?.key} />
    </Page>
  );
}

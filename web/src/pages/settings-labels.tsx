/**
 * Settings, Labels: the workspace's labels with their colours, and a new one made from a name and a colour; labels
 * are then ticked on a post in the composer. Names are unique per workspace whatever their case (the server says so
 * beside the name).
 */
import { useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { api, call, type ApiError, toApiError } from '../api.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { useUnsavedChanges } from '../ui/unsaved-changes.js';
import { useApi } from '../ui/use-api.js';
import { SettingsNav } from './settings-nav.js';

type Workspace = components['schemas']['Workspace'];

async function load() {
  const [labels, workspaces] = await Promise.all([call(api.GET('/labels')), call(api.GET('/workspaces'))]);
  return { labels: labels.data, workspaces: workspaces.data };
}

function AddLabel(props: { workspaces: Workspace[]; onAdded: (name: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const [color, setColor] = useState('#2a6fdb');
  const [workspaceId, setWorkspaceId] = useState(props.workspaces[0]?.id ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const changes = useUnsavedChanges();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = { name: name.trim(), color, ...(props.workspaces.length > 1 ? { workspaceId } : {}) };
      const { data } = await call(api.POST('/labels', { body }));
      setName('');
      changes.saved();
      await props.onAdded(data.name);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const beside = ['name', 'color'].some((f) => (error?.problemsAt(f).length ?? 0) > 0);
  return (
    <form
      class="settings-form"
      id="add-label"
      ref={changes.form}
      onSubmit={submit}
      aria-labelledby="add-label-heading"
      noValidate
    >
      <h2 id="add-label-heading">Make a label</h2>
      <label for="label-name">Name</label>
      <input
        id="label-name"
        type="text"
        maxLength={100}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
        placeholder="e.g. Evergreen, or Product launch"
        aria-describedby="label-name-problems"
      />
      <FieldProblems error={error} field="name" id="label-name-problems" />
      <label for="label-color">Colour</label>
      <input
        id="label-color"
        type="color"
        value={color}
        onInput={(e) => setColor(e.currentTarget.value)}
        aria-describedby="label-color-problems"
      />
      <FieldProblems error={error} field="color" id="label-color-problems" />
      {props.workspaces.length > 1 && (
        <>
          <label for="label-workspace">Workspace</label>
          <select id="label-workspace" value={workspaceId} onChange={(e) => setWorkspaceId(e.currentTarget.value)}>
            {props.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </>
      )}
      {error && !beside && <Problem error={error} />}
      <p>
        <button type="submit" class="primary" disabled={busy}>
          Make label
        </button>
      </p>
    </form>
  );
}

export function LabelsPage() {
  const { data, error, reload } = useApi(load, []);
  const [said, setSaid] = useState('');
  const workspaceName = new Map((data?.workspaces ?? []).map((w) => [w.id, w.name]));
  return (
    <Page title="Labels">
      <SettingsNav />
      <div role="status" aria-live="polite">
        {said && (
          <p class="saved" id="label-added">
            {said}
          </p>
        )}
      </div>
      <Problem error={error} />
      {!data && !error && <Loading label="Loading the labels" rows={3} />}
      {data && data.labels.length === 0 && (
        <Empty>
          <p>No labels yet. Make one below; it can then be ticked on a post when you write it.</p>
        </Empty>
      )}
      {data && data.labels.length > 0 && (
        <ul id="labels" class="labels">
          {data.labels.map((l) => (
            <li key={l.id}>
              <span class="swatch" style={{ background: l.color }} aria-hidden="true" /> {l.name}
              {data.workspaces.length > 1 && l.workspaceId && (
                <span class="muted"> · {workspaceName.get(l.workspaceId)}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {data && (
        <AddLabel
          workspaces={data.workspaces}
          onAdded={async (name) => {
            await reload();
            setSaid(`The label “${name}” is made: tick it on a post when you write it.`);
          }}
        />
      )}
    </Page>
  );
}

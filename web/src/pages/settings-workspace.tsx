/**
 * Settings, Workspace: whether each workspace holds its new posts for a reviewer's approval. Everyone sees it;
 * owners and admins change it (PATCH /workspaces/{id}), which applies to posts written from then on.
 */
import { useState } from 'preact/hooks';
import { api, call, type ApiError, toApiError } from '../api.js';
import type { components } from '../../../sdk/src/index.js';
import { Loading, Page, Problem } from '../ui/page.js';
import { useUnsavedChanges } from '../ui/unsaved-changes.js';
import { useApi } from '../ui/use-api.js';
import { ManagersOnly, SettingsNav, useManages } from './settings-nav.js';

type Workspace = components['schemas']['Workspace'];

function describe(required: boolean): string {
  return required
    ? "New posts wait for a reviewer's approval before they are published."
    : 'New posts are published at their time without approval.';
}

function ApprovalForm(props: { workspace: Workspace; onSaved: () => void }) {
  const { workspace } = props;
  const [required, setRequired] = useState(workspace.approvalRequired);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState('');
  const [error, setError] = useState<ApiError>();
  const changes = useUnsavedChanges();
  const id = `approval-${workspace.id}`;
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    setSaved('');
    setError(undefined);
    try {
      const { data } = await call(
        api.PATCH('/workspaces/{workspaceId}', {
          params: { path: { workspaceId: workspace.id } },
          body: { approvalRequired: required },
        }),
      );
      changes.saved();
      props.onSaved();
      setSaved(`Saved. ${describe(data.approvalRequired)} Posts already written keep their state.`);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form onSubmit={submit} ref={changes.form}>
      <label class="inline">
        <input
          type="checkbox"
          id={id}
          name="approvalRequired"
          checked={required}
          onChange={(e) => setRequired(e.currentTarget.checked)}
        />{' '}
        Hold new posts until a reviewer approves them
      </label>{' '}
      <button type="submit" class="primary" disabled={saving || required === workspace.approvalRequired}>
        Save
      </button>
      <p role="status" class="saved">
        {saved}
      </p>
      <Problem error={error} />
    </form>
  );
}

export function WorkspaceSettingsPage() {
  const manages = useManages();
  const { data, error, reload } = useApi(async () => (await call(api.GET('/workspaces'))).data, []);
  return (
    <Page title="Settings">
      <SettingsNav />
      <h2 class="visually-hidden">Workspaces</h2>
      <Problem error={error} />
      {(!data || manages === undefined) && !error && <Loading label="Loading the workspaces" rows={2} />}
      {data && manages !== undefined && (
        <>
          {!manages && <ManagersOnly>Only a manager changes whether posts need approval.</ManagersOnly>}
          {data.map((w) => (
            <section class="workspace" key={w.id} aria-labelledby={`workspace-${w.id}`}>
              <h3 id={`workspace-${w.id}`}>{w.name}</h3>
              <p class="approval-state">
                <strong>{w.approvalRequired ? 'Approval required.' : 'No approval needed.'}</strong>{' '}
                {describe(w.approvalRequired)}
              </p>
              {manages && <ApprovalForm workspace={w} onSaved={() => void reload()} />}
            </section>
          ))}
        </>
      )}
    </Page>
  );
}

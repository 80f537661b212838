/**
 * Settings, Members: who is in the account and their role in a workspace. Owners and admins add people (a new
 * person gets a temporary password, shown once) and change roles; the owner rules are the server's (only an owner
 * makes or unmakes an owner, a workspace keeps an owner), shown in its words when it refuses. They also remove a
 * person, after confirming: everything the person is signed in with stops working at once.
 */
import { useState } from 'preact/hooks';
import { api, call, type ApiError, toApiError } from '../api.js';
import type { components } from '../../../sdk/src/index.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { OneTimeSecret } from '../ui/one-time-secret.js';
import { FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { useUnsavedChanges } from '../ui/unsaved-changes.js';
import { useApi } from '../ui/use-api.js';
import { ManagersOnly, SettingsNav, useManages } from './settings-nav.js';

type Member = components['schemas']['Member'];
type Role = components['schemas']['MemberRole'];

const ROLES: readonly Role[] = ['owner', 'admin', 'editor', 'reviewer'];
const ROLES_EXPLAINED =
  'Owners and admins manage the team (approvals, channels, webhooks, members), and only an owner makes another ' +
  'owner; editors write and schedule posts; reviewers approve or reject held posts.';

async function load() {
  const [members, workspaces] = await Promise.all([call(api.GET('/members')), call(api.GET('/workspaces'))]);
  return { members: members.data, workspaces: workspaces.data };
}

function roleIn(member: Member, workspaceId: string): Role | undefined {
  return member.memberships.find((m) => m.workspaceId === workspaceId)?.role;
}

/** A member's role in one workspace, changed in place; the server's refusal (the owner rules) shows beside it. */
function RoleChanger(props: { member: Member; workspaceId: string; onChanged: (message: string) => void }) {
  const current = roleIn(props.member, props.workspaceId);
  const [role, setRole] = useState<Role | ''>(current ?? '');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<ApiError>();
  const changes = useUnsavedChanges();
  const problemId = `role-problem-${props.member.userId}`;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (role === '') return;
    setBusy(true);
    setRefusal(undefined);
    try {
      await call(
        api.PATCH('/members/{userId}', {
          params: { path: { userId: props.member.userId } },
          body: { role, workspaceId: props.workspaceId },
        }),
      );
      changes.saved();
      props.onChanged(`${props.member.name} is now ${role}.`);
    } catch (caught) {
      setRole(current ?? '');
      setRefusal(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="role-form" ref={changes.form} onSubmit={submit}>
      <span class="row-actions">
        <select
          aria-label={`Role of ${props.member.name}`}
          value={role}
          onChange={(e) => setRole(e.currentTarget.value as Role)}
          aria-invalid={refusal !== undefined}
          aria-describedby={refusal ? problemId : undefined}
        >
          {!current && (
            <option value="" disabled>
              not a member
            </option>
          )}
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy || role === '' || role === current}>
          {current ? 'Change' : 'Add to workspace'}
        </button>
      </span>
      <Problem error={refusal} id={problemId} />
    </form>
  );
}

/** Removes a person from the account after asking; the server's refusal (owner rules, yourself) shows beside it. */
function RemoveMember(props: { member: Member; onRemoved: (message: string) => void }) {
  const [refusal, setRefusal] = useState<ApiError>();
  const remove = async () => {
    setRefusal(undefined);
    try {
      await call(api.DELETE('/members/{userId}', { params: { path: { userId: props.member.userId } } }));
      props.onRemoved(`${props.member.name} was removed: their sessions, API keys and connected apps no longer work.`);
    } catch (caught) {
      setRefusal(toApiError(caught));
    }
  };
  return (
    <>
      <ConfirmButton
        label="Remove"
        ariaLabel={`Remove ${props.member.name}`}
        confirmLabel="Yes, remove"
        onConfirm={remove}
        question={
          `Remove ${props.member.name} from the account? They are signed out everywhere and their keys and ` +
          'connected apps stop working; their posts stay.'
        }
      />
      <Problem error={refusal} />
    </>
  );
}

function AddMember(props: {
  workspaceId: string;
  onAdded: (message: string, password: { email: string; value: string } | undefined) => void;
}) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const changes = useUnsavedChanges();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { data } = await call(
        api.POST('/members', {
          body: { email, role, workspaceId: props.workspaceId, ...(name.trim() ? { name: name.trim() } : {}) },
        }),
      );
      props.onAdded(
        data.temporaryPassword
          ? `${data.email} was added as ${role}.`
          : `${data.email} already had an account here: now ${role} in this workspace.`,
        data.temporaryPassword ? { email: data.email, value: data.temporaryPassword } : undefined,
      );
      setEmail('');
      setName('');
      changes.saved();
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const emailProblems = error?.problemsAt('email') ?? [];
  return (
    <form
      class="settings-form"
      id="add-member"
      ref={changes.form}
      onSubmit={submit}
      aria-labelledby="add-member-heading"
    >
      <h2 id="add-member-heading">Add a person</h2>
      <label for="member-email">Email</label>
      <input
        id="member-email"
        type="email"
        required
        maxLength={320}
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
        aria-invalid={emailProblems.length > 0}
        aria-describedby={emailProblems.length > 0 ? 'member-email-problems' : undefined}
      />
      <FieldProblems error={error} field="email" id="member-email-problems" />
      <label for="member-name">
        Name <span class="muted">(optional)</span>
      </label>
      <input
        id="member-name"
        type="text"
        maxLength={200}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="member-role">Role</label>
      <select id="member-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {error && emailProblems.length === 0 && <Problem error={error} />}
      <p>
        <button type="submit" class="primary" disabled={busy}>
          Add
        </button>
      </p>
    </form>
  );
}

export function MembersPage() {
  const manages = useManages();
  const { data, error, reload } = useApi(load, []);
  const [chosen, setChosen] = useState('');
  const [notice, setNotice] = useState('');
  const [password, setPassword] = useState<{ email: string; value: string }>();
  const workspaceId = data?.workspaces.some((w) => w.id === chosen) ? chosen : (data?.workspaces[0]?.id ?? '');
  // The notice waits for the list read again, so it never sits beside the list as it was before the change.
  const changed = (message: string) => {
    void reload().then(() => setNotice(message));
  };
  return (
    <Page title="Members">
      <SettingsNav />
      <Problem error={error} />
      <p role="status" class="saved">
        {notice}
      </p>
      {password && (
        <OneTimeSecret id="temporary-password" value={password.value}>
          {password.email} signs in with this temporary password, shown this once: pass it to them.
        </OneTimeSecret>
      )}
      <p class="muted">{ROLES_EXPLAINED}</p>
      {(!data || manages === undefined) && !error && <Loading label="Loading the members" rows={4} />}
      {data && manages !== undefined && (
        <>
          {data.workspaces.length > 1 && (
            <>
              <label for="members-workspace">Workspace</label>
              <select id="members-workspace" value={workspaceId} onChange={(e) => setChosen(e.currentTarget.value)}>
                {data.workspaces.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </>
          )}
          {!manages && <ManagersOnly>Only a manager adds people and changes roles.</ManagersOnly>}
          <table id="members" class="stack">
            <caption class="visually-hidden">The people of this account and their roles</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                {manages && <th scope="col">Remove</th>}
              </tr>
            </thead>
            <tbody>
              {data.members.map((m) => (
                <tr key={m.userId}>
                  <td data-label="Name">{m.name}</td>
                  <td data-label="Email">{m.email}</td>
                  <td data-label="Role">
                    {manages ? (
                      <RoleChanger
                        key={`${m.userId}:${workspaceId}:${roleIn(m, workspaceId)}`}
                        member={m}
                        workspaceId={workspaceId}
                        onChanged={changed}
                      />
                    ) : (
                      (roleIn(m, workspaceId) ?? 'not a member')
                    )}
                  </td>
                  {manages && (
                    <td data-label="Remove">
                      <RemoveMember member={m} onRemoved={changed} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {manages && (
            <AddMember
              workspaceId={workspaceId}
              onAdded={(message, secret) => {
                setPassword(secret);
                changed(message);
              }}
            />
          )}
        </>
      )}
    </Page>
  );
}

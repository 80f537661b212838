/**
 * Settings, Connected apps: the OAuth clients (MCP clients, integrations) the signed-in person authorized, with the
 * scopes they hold and when they last got a token; revoking one ends its every token at once. Each person sees
 * only their own consents, whatever their role (the server's rule).
 */
import { useState } from 'preact/hooks';
import { api, call, type ApiError, toApiError } from '../api.js';
import { Link } from '../router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { Empty, Loading, Page, Problem } from '../ui/page.js';
import { formatTime } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import { SettingsNav } from './settings-nav.js';

export function ConnectedAppsPage() {
  const { data, error, reload } = useApi(async () => (await call(api.GET('/connected-apps'))).data, []);
  const [refusal, setRefusal] = useState<ApiError>();
  const [notice, setNotice] = useState('');
  const revoke = async (clientId: string, name: string) => {
    try {
      await call(api.DELETE('/connected-apps/{clientId}', { params: { path: { clientId } } }));
      await reload();
      setRefusal(undefined);
      setNotice(`${name} no longer acts for you: its tokens stopped working. It must ask for your consent again.`);
    } catch (caught) {
      setRefusal(toApiError(caught));
    }
  };
  return (
    <Page title="Connected apps">
      <SettingsNav />
      <p>
        Apps you let act for you through OAuth, such as MCP clients (Claude, ChatGPT, IDEs). They act with the scopes
        you approved, until you revoke them.
      </p>
      <p role="status" class="saved">
        {notice}
      </p>
      <Problem error={error ?? refusal} />
      {!data && !error && <Loading label="Loading your connected apps" rows={2} />}
      {data && data.length === 0 && (
        <Empty>
          <p>
            No app acts for you through OAuth. MCP clients (Claude, ChatGPT, IDEs) appear here once you approve them;
            for scripts, create an <Link href="/app/settings/api-keys">API key</Link> instead.
          </p>
        </Empty>
      )}
      {data && data.length > 0 && (
        <table id="connected-apps" class="stack">
          <caption class="visually-hidden">Apps you authorized</caption>
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Scopes</th>
              <th scope="col">Authorized</th>
              <th scope="col">Last token</th>
              <th scope="col">
                <span class="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.map((app) => {
              const name = app.clientName ?? 'Unnamed client';
              return (
                <tr key={app.clientId}>
                  <td data-label="App">
                    {name}
                    {app.clientUri && (
                      <>
                        {' '}
                        <small class="muted">{app.clientUri}</small>
                      </>
                    )}
                  </td>
                  <td data-label="Scopes">{app.scopes.join(', ')}</td>
                  <td data-label="Authorized">{formatTime(app.authorizedAt)}</td>
                  <td data-label="Last token">{app.lastTokenAt ? formatTime(app.lastTokenAt) : 'never'}</td>
                  <td>
                    <ConfirmButton
                      label="Revoke access"
                      ariaLabel={`Revoke access of ${name}`}
                      question={`Revoke ${name}'s access? Its tokens stop working now.`}
                      confirmLabel="Yes, revoke access"
                      onConfirm={() => revoke(app.clientId, name)}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Page>
  );
}

/**
 * Where integrations and AI assistants reach Herald (the REST base URL and the MCP URL, at this page's own origin),
 * and a ready configuration for each common MCP client, with the key just created filled in (else a placeholder to
 * replace). Every form sends the key as a bearer token, which Herald's MCP endpoint accepts from an API key:
 * - Claude Desktop reads only local (stdio) servers from its file, so it runs mcp-remote, which forwards to the URL
 *   with the header; the key goes through env, as mcp-remote advises, since some clients split args on spaces;
 * - Claude Code, VS Code and Cursor speak streamable HTTP themselves and take the header as it is.
 */
import { CopyText } from '../ui/copy-text.js';

const PLACEHOLDER = '<your API key>';

interface Client {
  id: string;
  name: string;
  where: string;
  text: (mcp: string, key: string) => string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

const CLIENTS: Client[] = [
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    where:
      'In claude_desktop_config.json (Settings, Developer, Edit Config); it runs mcp-remote with npx, so it needs ' +
      'Node.js. Restart Claude afterwards.',
    text: (mcp, key) =>
      json({
        mcpServers: {
          herald: {
            command: 'npx',
            args: ['-y', 'mcp-remote', mcp, '--transport', 'http-only', '--header', 'Authorization:${HERALD_AUTH}'],
            env: { HERALD_AUTH: `Bearer ${key}` },
          },
        },
      }),
  },
  {
    id: 'claude-code',
    name: 'Claude Code',
    where: 'Run in a terminal.',
    text: (mcp, key) => `claude mcp add --transport http herald ${mcp} --header "Authorization: Bearer ${key}"`,
  },
  {
    id: 'vscode',
    name: 'VS Code',
    where: 'In .vscode/mcp.json in your project.',
    text: (mcp, key) =>
      json({ servers: { herald: { type: 'http', url: mcp, headers: { Authorization: `Bearer ${key}` } } } }),
  },
  {
    id: 'cursor',
    name: 'Cursor',
    where: 'In ~/.cursor/mcp.json (or .cursor/mcp.json in a project).',
    text: (mcp, key) => json({ mcpServers: { herald: { url: mcp, headers: { Authorization: `Bearer ${key}` } } } }),
  },
];

export function ConnectClients(props: { apiKey?: string }) {
  const origin = location.origin;
  const mcp = `${origin}/mcp`;
  const key = props.apiKey ?? PLACEHOLDER;
  return (
    <section id="connect" class="connect" aria-labelledby="connect-heading">
      <h2 id="connect-heading">Connect an integration or an AI assistant</h2>
      <CopyText id="rest-url" label="REST API base URL" value={`${origin}/v1/rest`} />
      <CopyText id="mcp-url" label="MCP server URL" value={mcp} />
      <p class="muted">
        {props.apiKey
          ? 'The configurations below carry the key you just created: keep them as private as the key.'
          : `Replace ${PLACEHOLDER} with a key (create one above; it is shown once).`}
      </p>
      {CLIENTS.map((client) => (
        <CopyText
          key={client.id}
          id={`config-${client.id}`}
          block
          label={client.name}
          hint={client.where}
          value={client.text(mcp, key)}
        />
      ))}
    </section>
  );
}

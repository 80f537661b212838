/**
 * Insights as MCP resources, for every client on both eras (tools/list stays as SPEC fixes it): an assistant reads
 * what worked and when to post without a tool of its own.
 * - `herald://insights`, `herald://insights/workspaces/{id}`, `.../channels/{id}` and `.../labels/{id}`, each with
 *   an optional `?from=YYYY-MM-DD&to=YYYY-MM-DD&timezone=Area/City`, are GET /insights' report for that scope and
 *   period, as JSON; `herald://insights/channels/{id}/best-times?weeks=N` is GET /channels/{id}/best-times';
 * - resources/list names the account's own: the whole account, each channel and label, each channel's best times;
 *   resources/templates/list the same as URI templates;
 * - a URI that names nothing of the caller's account is "not found", and a bad period invalid params, with the
 *   domain's words.
 */
import { JSONRPCErrorException } from 'json-rpc-2.0';
import type { DomainDeps } from '../domain/deps.js';
import { HeraldError } from '../domain/errors.js';
import { bestTimes } from '../domain/insights/best-times.js';
import { insightsReport } from '../domain/insights/insights-report.js';
import type { Principal } from '../domain/principal.js';
import { RpcErrorCode } from './protocol.js';

const JSON_TYPE = 'application/json';
const PERIOD = '{?from,to,timezone}';

export const INSIGHTS_TEMPLATES = [
  {
    uriTemplate: `herald://insights${PERIOD}`,
    name: 'insights',
    title: 'Insights of the account',
    description:
      'What the published posts of the whole account did in a period (the last 28 days when from and to are left ' +
      'out), against the period before: totals, by network, channel, label, weekday and hour, top posts, audience.',
  },
  {
    uriTemplate: `herald://insights/workspaces/{workspaceId}${PERIOD}`,
    name: 'insights-workspace',
    title: 'Insights of a workspace',
    description: 'The same for the channels of one workspace.',
  },
  {
    uriTemplate: `herald://insights/channels/{channelId}${PERIOD}`,
    name: 'insights-channel',
    title: 'Insights of a channel',
    description: 'The same for one channel, with its audience over the period.',
  },
  {
    uriTemplate: `herald://insights/labels/{labelId}${PERIOD}`,
    name: 'insights-label',
    title: 'Insights of a label (a campaign)',
    description: 'The same for the posts carrying one label.',
  },
  {
    uriTemplate: 'herald://insights/channels/{channelId}/best-times{?weeks}',
    name: 'best-times',
    title: 'When to post on a channel',
    description:
      "The weekday-and-hour windows where the channel's own posts did best, with sample sizes and how far to " +
      'trust them.',
  },
].map((t) => ({ ...t, mimeType: JSON_TYPE }));

export function isInsightsUri(uri: unknown): uri is string {
  return typeof uri === 'string' && uri.startsWith('herald://insights');
}

export async function listInsightsResources(deps: DomainDeps, principal: Principal) {
  const channels = await deps.repos.channels.list(principal.accountId);
  const labels = await deps.repos.labels.list(principal.accountId);
  return [
    { uri: 'herald://insights', name: 'insights', title: 'Insights of the account, last 28 days', mimeType: JSON_TYPE },
    ...channels.flatMap((c) => [
      {
        uri: `herald://insights/channels/${c.id}`,
        name: `insights-channel-${c.id}`,
        title: `Insights of ${c.displayName ?? c.name}, last 28 days`,
        mimeType: JSON_TYPE,
      },
      {
        uri: `herald://insights/channels/${c.id}/best-times`,
        name: `best-times-${c.id}`,
        title: `When to post on ${c.displayName ?? c.name}`,
        mimeType: JSON_TYPE,
      },
    ]),
    ...labels.map((l) => ({
      uri: `herald://insights/labels/${l.id}`,
      name: `insights-label-${l.id}`,
      title: `Insights of the label ${l.name}, last 28 days`,
      mimeType: JSON_TYPE,
    })),
  ];
}

export async function readInsightsResource(deps: DomainDeps, principal: Principal, uri: string, notFoundCode: number) {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw notFound(uri, notFoundCode);
  }
  const query = Object.fromEntries(url.searchParams);
  const path = `${url.host}${url.pathname}`.replace(/\/$/, '').split('/').map(decodeURIComponent);
  try {
    const data = await readPath(deps, principal, path, query);
    if (data === undefined) throw notFound(uri, notFoundCode);
    return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(data) }] };
  } catch (error) {
    if (error instanceof HeraldError) {
      throw new JSONRPCErrorException(error.message, error.status === 404 ? notFoundCode : RpcErrorCode.InvalidParams, {
        uri,
        details: error.details,
      });
    }
    throw error;
  }
}

async function readPath(
  deps: DomainDeps,
  principal: Principal,
  path: string[],
  query: Record<string, string>,
): Promise<unknown> {
  const period = { from: query.from, to: query.to, timezone: query.timezone };
  const [root, kind, id, more] = path;
  if (root !== 'insights' || path.length > 4) return undefined;
  if (kind === undefined) return insightsReport(deps, principal, period);
  if (kind === 'channels' && id && more === 'best-times') {
    const weeks = query.weeks === undefined ? undefined : Number(query.weeks);
    if (weeks !== undefined && !(Number.isInteger(weeks) && weeks >= 1 && weeks <= 52)) {
      throw new JSONRPCErrorException('weeks must be a whole number from 1 to 52.', RpcErrorCode.InvalidParams);
    }
    return bestTimes(deps, principal, id, { weeks });
  }
  if (!id || more !== undefined) return undefined;
  // A scope that is not the account's is not found here, where REST says which filter to fix.
  const known =
    kind === 'channels'
      ? (await deps.repos.channels.get(principal.accountId, id)) !== undefined
      : kind === 'labels'
        ? (await deps.repos.labels.findMany(principal.accountId, [id])).length > 0
        : kind === 'workspaces'
          ? (await deps.repos.accounts.listWorkspaces(principal.accountId)).some((w) => w.id === id)
          : false;
  if (!known) return undefined;
  if (kind === 'channels') return insightsReport(deps, principal, { ...period, channelIds: [id] });
  if (kind === 'labels') return insightsReport(deps, principal, { ...period, labelIds: [id] });
  return insightsReport(deps, principal, { ...period, workspaceId: id });
}

function notFound(uri: string, code: number): JSONRPCErrorException {
  return new JSONRPCErrorException(`Resource not found: ${uri}. resources/list names this account's insights.`, code, {
    uri,
  });
}

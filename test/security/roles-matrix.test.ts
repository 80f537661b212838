/**
 * The roles matrix: for every REST operation of the bundled OpenAPI document and every tool /mcp lists, for each
 * role and each kind of credential, whether the request is let through or refused. One table says what power each
 * operation needs; who holds which power follows from a few rules (role-powers.ts). A new operation or tool
 * without a row fails here.
 *
 * Refused means 401 or 403; anything else (200, 201, 400 for the example body, 404 for a made-up id) means the
 * authorization passed. The credentials are real: the app's session from its sign-in form, API keys made over REST
 * from that session, OAuth tokens from the consent pages. The editor and reviewer made theirs as admins and were
 * demoted after, so their manage_team key and token hold more than their role: the role must win.
 */
import assert from 'node:assert/strict';
import type { MemberRole } from '../../src/domain/members.js';
import { connectSdkClient, callTool } from '../mcp/support.js';
import { openapi, restOperations, type RestOperation } from '../support/rest-operations.js';
import { startTestHerald, type ApiResponse, type SeededAccount, type TestHerald } from '../support/herald.js';
import { addPerson, appSession, oauthTokens } from './team-support.js';

/**
 * What an operation needs beyond being a member with read_profile and manage_post:
 * - any: nothing more;
 * - team: manage_team, held by the credential and by the role (owner, admin);
 * - review: team, or a reviewer signed in to the app;
 * - owner: team, and the caller is an owner;
 * - not_oauth: not an OAuth access token (API keys are made in the app or with a key).
 */
type Power = 'any' | 'team' | 'review' | 'owner' | 'not_oauth';

const REST_POWERS: Record<string, Power> = {
  getProfile: 'any',
  createPostLegacy: 'any',
  listChannels: 'any',
  listWorkspaces: 'any',
  listNetworks: 'any',
  connectChannel: 'team',
  updateChannel: 'team',
  disconnectChannel: 'team',
  // Reconnecting renews a channel's own network account, which anyone posting to it may need to do.
  reconnectChannel: 'any',
  listPosts: 'any',
  createPosts: 'any',
  listScheduledPosts: 'any',
  bulkCreatePosts: 'any',
  bulkDeletePosts: 'team',
  getPost: 'any',
  updatePost: 'any',
  deletePost: 'any',
  getChannelSchedule: 'any',
  setChannelSchedule: 'any',
  pauseQueue: 'any',
  resumeQueue: 'any',
  clearQueue: 'any',
  reorderQueue: 'any',
  listLabels: 'any',
  createLabel: 'any',
  applyLabels: 'any',
  removeLabel: 'any',
  bulkLabelPosts: 'team',
  recyclePost: 'any',
  listCollections: 'any',
  listPendingApprovals: 'review',
  settlePost: 'any',
  approvePost: 'review',
  rejectPost: 'review',
  assignReviewer: 'review',
  decideApprovals: 'review',
  getPostHistory: 'any',
  getPostGroup: 'any',
  listEvents: 'any',
  listWebhooks: 'team',
  createWebhook: 'team',
  getWebhook: 'team',
  updateWebhook: 'team',
  deleteWebhook: 'team',
  rotateWebhookSecret: 'team',
  sendWebhookTest: 'team',
  listWebhookDeliveries: 'team',
  redeliverWebhook: 'team',
  listApiKeys: 'any',
  createApiKey: 'not_oauth',
  revokeApiKey: 'any',
  listConnectedApps: 'any',
  revokeConnectedApp: 'any',
  listMembers: 'any',
  addMember: 'team',
  setMemberRole: 'team',
  removeMember: 'team',
  listMemberConnectedApps: 'owner',
  revokeMemberConnectedApp: 'owner',
  getCalendar: 'any',
  retryPost: 'any',
  movePost: 'any',
  getWorkspace: 'any',
  updateWorkspace: 'team',
  listMedia: 'any',
  createMediaUpload: 'any',
  completeMediaUpload: 'any',
  generatePostDraft: 'any',
  rewriteText: 'any',
  suggestHashtags: 'any',
  generateImage: 'any',
  getInsights: 'any',
  exportInsights: 'any',
  getPostInsights: 'any',
  getBestTimes: 'any',
};

const MCP_POWERS: Record<string, Power> = {
  approval_approve: 'team',
  approval_assign: 'team',
  approval_list_pending: 'team',
  approval_reject: 'team',
  bulk_delete: 'team',
  bulk_label: 'team',
  bulk_schedule: 'any',
  complete_media_upload: 'any',
  create_image_post: 'any',
  create_media_upload: 'any',
  create_public_calendar_link: 'any',
  create_text_post: 'any',
  delete_post: 'any',
  delete_shareable_calendar: 'any',
  generate_image: 'any',
  generate_post: 'any',
  get_calendar_view_options: 'any',
  get_channel: 'any',
  get_channels: 'any',
  get_filtered_channels: 'any',
  get_in_app_calendar_url: 'any',
  get_paginated_posts: 'any',
  get_posts_for_channels: 'any',
  get_posts_with_assets: 'any',
  get_scheduled_posts: 'any',
  get_shareable_calendars: 'any',
  get_workspaces: 'any',
  import_media_from_url: 'any',
  instagram_first_comment: 'any',
  label_apply: 'any',
  label_create: 'any',
  label_list: 'any',
  label_remove: 'any',
  list_collections: 'any',
  location_search: 'any',
  queue_clear: 'any',
  queue_pause: 'any',
  queue_reorder: 'any',
  queue_resume: 'any',
  recycle_post: 'any',
  rewrite: 'any',
  suggest_hashtags: 'any',
  update_post: 'any',
  update_shareable_calendar: 'any',
};

/** Bodies other than the operation's OpenAPI example, where the example asks for more than the row is about. */
const BODIES: Record<string, unknown> = {
  createApiKey: { name: 'matrix key' },
  connectChannel: { network: 'sandbox', handle: 'matrix' },
};

const ROLES: MemberRole[] = ['owner', 'admin', 'editor', 'reviewer'];
type CredentialKind = 'session' | 'key' | 'team_key' | 'oauth' | 'team_oauth';
const _CREDENTIALS: CredentialKind[] = ['session', 'key', 'team_key', 'oauth', 'team_oauth'];

function allowed(power: Power, role: MemberRole, credential: CredentialKind): boolean {
  const manages =
    (role === 'owner' || role === 'admin') && (credential === 'session' || credential.startsWith('team_'));
  switch (power) {
    case 'any':
      return true;
    case 'team':
      return manages;
    case 'review':
      return manages || (role === 'reviewer' && credential === 'session');
    case 'owner':
      return manages && role === 'owner';
    case 'not_oauth':
      return !credential.endsWith('oauth');
  }
}

interface Caller {
  role: MemberRole;
  credential: CredentialKind;
  rest(method: string, path: string, body: unknown): Promise<ApiResponse>;
  bearer?: string;
}

async function callersOf(t: TestHerald, a: SeededAccount): Promise<Caller[]> {
  const callers: Caller[] = [];
  for (const role of ROLES) {
    const person =
      role === 'owner'
        ? { userId: a.userId, email: a.email, password: a.password }
        : await addPerson(t, a, 'admin', `${role}@example.test`);
    const session = await appSession(t, person);
    assert.ok(session.signedIn, `${role} signs in`);
    const mint = async (scopes: string[]) => {
      const made = await session.call('POST', '/v1/rest/api-keys', { name: `${role} key`, scopes });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body.data.key as string;
    };
    const bearers: Record<Exclude<CredentialKind, 'session'>, string> = {
      key: await mint([]),
      team_key: await mint(['manage_team']),
      oauth: (await oauthTokens(t, person)).accessToken,
      team_oauth: (await oauthTokens(t, person, { manageTeam: true })).accessToken,
    };
    if (role !== 'owner' && role !== 'admin') {
      const demoted = await t.api('PATCH', `/v1/rest/members/${person.userId}`, { token: a.apiKey, body: { role } });
      assert.equal(demoted.status, 200, JSON.stringify(demoted.body));
    }
    callers.push({ role, credential: 'session', rest: (method, path, body) => session.call(method, path, body) });
    for (const [credential, token] of Object.entries(bearers) as [Exclude<CredentialKind, 'session'>, string][]) {
      callers.push({
        role,
        credential,
        bearer: token,
        rest: (method, path, body) => t.api(method, path, { token, body }),
      });
    }
  }
  return callers;
}

function requestOf(operation: RestOperation): { path: string; body: unknown } {
  const path = operation.path.replace(/\{[^}]+\}/g, 'matrix-missing-id');
  if (operation.operationId in BODIES) return { path, body: BODIES[operation.operationId] };
  return { path, body: generatedExample(operation) ?? (operation.hasBody ? {} : undefined) };
}

/** The request body's example in the OpenAPI document (every operation with a body has one). */
function generatedExample(operation: RestOperation): unknown {
  const item = openapi.paths[operation.path.slice('/v1/rest'.length)][operation.method.toLowerCase()] as {
    requestBody?: { $ref?: string; content?: Record<string, { example?: unknown }> };
  };
  let body = item.requestBody;
  if (body?.$ref)
    body = body.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, part) => node[part], openapi);
  return body?.content?.['application/json']?.example;
}

/** Runs the calls a few at a time: enough to keep the run short on two cores, few enough not to crowd the server. */
async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe('the roles matrix: every operation and tool, for each role and credential', function () {
  this.timeout(300_000);
  let t: TestHerald;
  let a: SeededAccount;
  let callers: Caller[];

  before(async () => {
    t = await startTestHerald({ validateResponses: false });
    a = await t.seedAccount({ channels: 1 });
    callers = await callersOf(t, a);
  });
  after(() => t?.close());

  it('has one row for every REST operation of the OpenAPI document, and none for an operation that is gone', () => {
    const operations = restOperations()
      .map((o) => o.operationId)
      .sort();
    assert.deepEqual(Object.keys(REST_POWERS).sort(), operations);
  });

  it('has one row for every tool /mcp lists, and none for a tool that is gone', async () => {
    const client = await connectSdkClient(t, a.apiKey);
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    await client.close();
    assert.equal(tools.length, 44);
    assert.deepEqual(Object.keys(MCP_POWERS).sort(), tools);
  });

  it('lets through or refuses each REST operation as the table says', async () => {
    const wrong: string[] = [];
    // A batch holds one caller's different operations: the same write never races itself.
    const calls = callers.flatMap((caller) => restOperations().map((operation) => ({ operation, caller })));
    await inBatches(calls, 8, async ({ operation, caller }) => {
      const { path, body } = requestOf(operation);
      const response = await caller.rest(operation.method, path, body);
      assert.ok(
        response.status !== 429 && response.status < 500,
        `${operation.operationId} ` +
          `as ${caller.role} ${caller.credential}: ${response.status} ${JSON.stringify(response.body)}`,
      );
      const refused = response.status === 401 || response.status === 403;
      const expected = allowed(REST_POWERS[operation.operationId] ?? 'any', caller.role, caller.credential);
      if (refused === expected)
        wrong.push(
          `${operation.operationId} as ${caller.role} ` +
            `with ${caller.credential}: ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`,
        );
    });
    assert.equal(wrong.length, 0, `not as the table says:\n${wrong.sort().join('\n')}`);
  });

  it(
    'lets through or refuses each MCP tool as the table says ' +
      '(bearer credentials only: the app has no MCP session)',
    async () => {
      const wrong: string[] = [];
      const calls = Object.keys(MCP_POWERS).flatMap((tool) =>
        callers.filter((c) => c.bearer).map((caller) => ({ tool, caller })),
      );
      await inBatches(calls, 8, async ({ tool, caller }) => {
        const response = await callTool(t, caller.bearer!, tool, {});
        assert.ok(
          response.status !== 429 && response.status < 500,
          `${tool} as ${caller.role} ${caller.credential}: ${response.status}`,
        );
        const refused = response.status === 401 || response.status === 403;
        if (refused === allowed(MCP_POWERS[tool], caller.role, caller.credential)) {
          wrong.push(
            `${tool} as ${caller.role} ` +
              `with ${caller.credential}: ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`,
          );
        }
      });
      assert.equal(wrong.length, 0, `not as the table says:\n${wrong.sort().join('\n')}`);
    },
  );
});

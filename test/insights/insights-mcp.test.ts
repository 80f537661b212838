import assert from 'node:assert/strict';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectClient, type ClientKind } from '../mcp/apps-support.js';
import { madeUpHistory, type History } from './fixture.js';

describe('insights as MCP resources', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let history: History;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 2 });
    history = await madeUpHistory(t, a);
  });
  after(() => t.close());

  const rest = async (path: string) => {
    const res = await t.api('GET', `/v1/rest${path}`, { token: a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };

  for (const kind of ['v1', 'v2 2026-07-28'] as ClientKind[]) {
    it(`${kind}: lists the account's insights, reads the numbers REST answers; 44 tools still`, async () => {
      const client = await connectClient(kind, t, a.apiKey, false);
      try {
        assert.equal((await client.listTools()).length, 44);
        const listed = (await client.listResources()).map((r) => r.uri);
        assert.deepEqual(
          listed.sort(),
          [
            'herald://insights',
            ...a.channelIds.flatMap((id) => [
              `herald://insights/channels/${id}`,
              `herald://insights/channels/${id}/best-times`,
            ]),
            `herald://insights/labels/${history.labelId}`,
          ].sort(),
        );
        const read = async (uri: string) => {
          const answer = await client.readResource(uri);
          assert.equal(answer.contents[0].mimeType, 'application/json');
          return JSON.parse(answer.contents[0].text);
        };
        const period = 'from=2026-03-01&to=2026-03-28';
        assert.deepEqual(await read(`herald://insights?${period}`), await rest(`/insights?${period}`));
        assert.deepEqual(
          await read(`herald://insights/channels/${a.channelIds[1]}?${period}`),
          await rest(`/insights?${period}&channelIds=${a.channelIds[1]}`),
        );
        assert.deepEqual(
          await read(`herald://insights/labels/${history.labelId}?${period}`),
          await rest(`/insights?${period}&labelIds=${history.labelId}`),
        );
        assert.deepEqual(
          await read(`herald://insights/workspaces/${a.workspaceId}?${period}`),
          await rest(`/insights?${period}&workspaceId=${a.workspaceId}`),
        );
        assert.deepEqual(
          await read(`herald://insights/channels/${a.channelIds[0]}/best-times`),
          await rest(`/channels/${a.channelIds[0]}/best-times`),
        );

        const other = await t.seedAccount({ name: 'Other', channels: 1 });
        await assert.rejects(read(`herald://insights/channels/${other.channelIds[0]}`), /Resource not found/);
        await assert.rejects(read('herald://insights?from=2026-03-10&to=2026-03-01'), /from must be on or before to/);
      } finally {
        await client.close();
      }
    });
  }

  it('offers resource templates for a channel, a label, a workspace and a period', async () => {
    const res = await t.api('POST', '/mcp', {
      token: a.apiKey,
      body: { jsonrpc: '2.0', id: 1, method: 'resources/templates/list', params: {} },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.result.resourceTemplates.map((r: any) => r.uriTemplate),
      [
        'herald://insights{?from,to,timezone}',
        'herald://insights/workspaces/{workspaceId}{?from,to,timezone}',
        'herald://insights/channels/{channelId}{?from,to,timezone}',
        'herald://insights/labels/{labelId}{?from,to,timezone}',
        'herald://insights/channels/{channelId}/best-times{?weeks}',
      ],
    );
  });
});

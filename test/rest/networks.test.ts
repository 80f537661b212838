import assert from 'node:assert/strict';
import { NETWORK_CAPABILITIES } from '../../src/domain/networks/capabilities.js';
import { startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';

/** GET /networks carries each network's whole capabilities row, typed, so a client builds its forms from it. */
describe(`REST /networks: the capabilities table (${TEST_DB})`, function () {
  this.timeout(30_000);
  let t: TestHerald;

  before(async () => {
    t = await startTestHerald({ validateResponses: true });
  });
  after(() => t.close());

  it('answers every row as the table holds it, channelOptions fields included', async () => {
    const a = await t.seedAccount({ channels: 0 });
    const networks = await t.api('GET', '/v1/rest/networks', { token: a.basicKey });
    assert.equal(networks.status, 200, JSON.stringify(networks.body));
    const rows = Object.fromEntries(
      networks.body.data.map((n: { name: string; capabilities: unknown }) => [n.name, n.capabilities]),
    );
    assert.deepEqual(rows, JSON.parse(JSON.stringify(NETWORK_CAPABILITIES)));
    const option = (network: string, name: string) =>
      rows[network].channelOptions.find((o: { name: string }) => o.name === name);
    assert.equal(option('youtube', 'title').required, true);
    assert.deepEqual(option('tiktok', 'privacyLevel').type, {
      oneOf: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
    });
    assert.equal(option('pinterest', 'boardId').type, 'string');
  });
});

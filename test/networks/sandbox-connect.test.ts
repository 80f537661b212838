import assert from 'node:assert/strict';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

/** The sandbox connects like a credentials network, with only a handle, so the connect flow can be tried offline. */
describe('connecting a sandbox channel', () => {
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(async () => t.close());

  it(
    'is offered with its one field, connects by handle, ' + 'keeps the channel on a second connect, and publishes',
    async () => {
      const networks = (await t.api('GET', '/v1/rest/networks', { token: a.apiKey })).body.data;
      const sandbox = networks.find((n: { name: string }) => n.name === 'sandbox');
      assert.equal(sandbox.configured, true);
      assert.deepEqual(
        sandbox.connection.fields.map((f: { name: string }) => f.name),
        ['handle'],
      );

      const first = await t.api('POST', '/v1/rest/channels/connect', {
        token: a.apiKey,
        body: { network: 'sandbox', handle: 'our-brand' },
      });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const channel = first.body.data[0];
      assert.equal(channel.network, 'sandbox');
      assert.equal(channel.status, 'active');
      const again = await t.api('POST', '/v1/rest/channels/connect', {
        token: a.apiKey,
        body: { network: 'sandbox', handle: '@Our-Brand' },
      });
      assert.equal(again.body.data[0].id, channel.id, 'the same sandbox account is the same channel');

      const refused = await t.api('POST', '/v1/rest/channels/connect', {
        token: a.apiKey,
        body: { network: 'sandbox', handle: 'no spaces/please' },
      });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /letters, digits, dots, dashes or underscores/);

      const post = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'From a connected sandbox' },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
    },
  );

  it(
    'gives a new channel the time zone sent with the connect, ' + 'UTC without one, and refuses one that is not a zone',
    async () => {
      const connect = (body: Record<string, unknown>) =>
        t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'sandbox', ...body } });
      const refused = await connect({ handle: 'our-brand', timezone: 'Europe/Nowhere' });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.details[0].path, 'timezone');
      assert.deepEqual((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data, [], 'nothing made');

      const zoned = await connect({ handle: 'our-brand', timezone: 'America/New_York' });
      assert.equal(zoned.status, 201, JSON.stringify(zoned.body));
      assert.equal(zoned.body.data[0].timezone, 'America/New_York');
      const plain = await connect({ handle: 'other-brand' });
      assert.equal(plain.body.data[0].timezone, 'UTC');
    },
  );

  it('reconnects a sandbox channel with nothing typed again, seeded ones too', async () => {
    const seeded = await t.seedAccount({ channels: 1 });
    const again = await t.api('POST', `/v1/rest/channels/${seeded.channelIds[0]}/reconnect`, {
      token: seeded.apiKey,
      body: {},
    });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal(again.body.data[0].id, seeded.channelIds[0]);
    assert.equal(again.body.data[0].status, 'active');
  });

  it('asks for the fields again when a channel without credentials cannot say them, the refusal handled', async () => {
    const seeded = await t.seedAccount({ channels: 1 });
    const networks = t.deps.networks;
    // Refused at once, before the channel's credentials are read:
    // left pending meanwhile, the refusal would be unhandled.
    const refusing = Object.assign(Object.create(networks.get('sandbox')!), {
      fieldsFor: () => Promise.reject(new Error('the network is away')),
    });
    t.deps.networks = { get: (name) => (name === 'sandbox' ? refusing : networks.get(name)) };
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    const again = await t
      .api('POST', `/v1/rest/channels/${seeded.channelIds[0]}/reconnect`, { token: seeded.apiKey, body: {} })
      .finally(() => process.off('unhandledRejection', listener));
    assert.deepEqual(unhandled, []);
    assert.equal(again.status, 400, JSON.stringify(again.body));
    assert.match(again.body.message, /handle is required/);
  });
});

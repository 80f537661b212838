import assert from 'node:assert/strict';
import { NetworkError, type ConnectorChannel, type PublishRequest } from '../../src/domain/networks/connector.js';
import type { Logger } from '../../src/logger.js';
import { NetworkRegistry } from '../../src/publishing/networks/registry.js';
import { SandboxNetwork } from '../../src/publishing/networks/sandbox.js';
import { futureIso, startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';
import { pinClock, testWorker } from './support.js';

const REFUSED =
  'X refused to refresh the access token (Value passed for the token was invalid.); reconnect the channel';

/** The sandbox as a network whose token lapsed: publishing asks for a refresh, which `refusal` answers. */
function lapsedNetworks(t: TestHerald, refusal: () => Error): NetworkRegistry {
  class Lapsed extends SandboxNetwork {
    override async publish(_request: PublishRequest): Promise<never> {
      throw new NetworkError('refresh_and_retry', 'the access token has expired');
    }
    async refresh(_channel: ConnectorChannel): Promise<void> {
      throw refusal();
    }
  }
  return new NetworkRegistry().register('sandbox', new Lapsed(t.deps.repos.sandbox, t.url));
}

function recordingLogger() {
  const lines: { level: string; message: string; fields?: unknown }[] = [];
  const logger: Logger = {
    info: (message, fields) => lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, error) => lines.push({ level: 'error', message, fields: error }),
  };
  return { lines, logger };
}

describe(`a token refresh refused while publishing (${TEST_DB})`, () => {
  let t: TestHerald;
  beforeEach(async () => {
    t = await startTestHerald();
  });
  afterEach(() => t?.close());

  async function publishDue(networks: NetworkRegistry, logger: Logger) {
    const a = await t.seedAccount({ channels: 1 });
    const clock = pinClock(t, new Date().toISOString());
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Due now', isScheduled: true, dateTime: futureIso(1) },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    clock.advance(2 * 60_000);
    await testWorker(t, {}, networks, undefined, logger).tick();
    const post = (await t.api('GET', `/v1/rest/posts/${created.body.data[0].id}`, { token: a.apiKey })).body.data;
    return { channelId: a.channelIds[0], post };
  }

  it("is one warning line with the network's reason, no stack, and the post waits for a reconnect", async () => {
    const { lines, logger } = recordingLogger();
    const { channelId, post } = await publishDue(
      lapsedNetworks(t, () => new NetworkError('reconnect_needed', REFUSED)),
      logger,
    );
    assert.equal(post.status, 'failed');
    assert.match(post.error, /reconnect/);
    assert.deepEqual(lines, [
      {
        level: 'warn',
        message: 'a network refused to renew a channel connection',
        fields: { channelId, network: 'sandbox', reason: REFUSED },
      },
    ]);
  });

  it('is still an error with its stack when the refresh fails for a reason of our own', async () => {
    const { lines, logger } = recordingLogger();
    await publishDue(
      lapsedNetworks(t, () => new TypeError("Cannot read properties of undefined (reading 'token')")),
      logger,
    );
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0].level, 'error');
    assert.equal(lines[0].message, 'refreshing a channel connection failed');
    assert.ok(lines[0].fields instanceof TypeError);
  });
});

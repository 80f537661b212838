import assert from 'node:assert/strict';
import * as provisioning from '../../src/domain/provisioning.js';
import type { Logger } from '../../src/logger.js';
import { startTestHerald, type TestHerald } from '../support/herald.js';
import { testWorker } from './support.js';

describe('live-post sync of a channel the network refuses', () => {
  let t: TestHerald;
  before(async () => {
    t = await startTestHerald();
  });
  after(() => t.close());

  it('says it in one plain line, with no stack trace', async () => {
    const a = await t.seedAccount({ channels: 0 });
    // A channel with no credentials, as `herald channel add --network bluesky` used to make.
    const { id } = await provisioning.addChannel(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      network: 'bluesky',
      handle: 'acme.bsky.social',
    });
    const lines: { level: string; message: string; fields?: unknown }[] = [];
    const logger: Logger = {
      info: (message, fields) => lines.push({ level: 'info', message, fields }),
      warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
      error: (message, error) => lines.push({ level: 'error', message, fields: error }),
    };
    await testWorker(t, {}, undefined, undefined, logger).sync();
    assert.deepEqual(lines, [
      {
        level: 'warn',
        message: 'live-post sync failed',
        fields: {
          channelId: id,
          network: 'bluesky',
          reason: 'the channel holds no credentials (it was disconnected); connect it again',
        },
      },
    ]);
  });
});

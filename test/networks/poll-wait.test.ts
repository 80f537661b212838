import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { NetworkHttp } from '../../src/publishing/networks/network-http.js';

/**
 * The wait between a connector's status polls: each network's own interval in service, scaled down only where
 * a test sets networks.pollWaitScale against a fake that finishes after a number of polls.
 */
describe('waits between status polls', () => {
  const layer = (pollWaitScale?: number) =>
    new NetworkHttp({
      fetcher: {} as never,
      overrides: {},
      allowHosts: [],
      timeoutMs: 1_000,
      maxBytes: 1_000,
      library: {} as never,
      pollWaitScale,
    });

  async function waited(http: NetworkHttp, ms: number): Promise<number> {
    const started = performance.now();
    await http.pause(ms);
    return performance.now() - started;
  }

  it("keeps each network's own interval in service", async () => {
    assert.equal(loadConfig({}).networks.pollWaitScale, 1);
    assert.ok((await waited(layer(), 200)) >= 195, 'no scale: the interval itself');
    assert.ok((await waited(layer(1), 200)) >= 195);
  });

  it('scales the interval where the setting says', async () => {
    // Ten minutes at a ten-thousandth: 60 ms, far inside the test's timeout, which the full wait would pass.
    const scaled = await waited(layer(0.0001), 600_000);
    assert.ok(scaled >= 55 && scaled < 20_000, `waited ${scaled} ms`);
  });
});

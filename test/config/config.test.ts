import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';

describe('configuration from the environment', () => {
  it('takes SANDBOX_LATENCY_MS=0, the default docs/configuration.md gives, and refuses a negative latency', () => {
    // docs/configuration.md's table gives 0 as SANDBOX_LATENCY_MS's default: writing it out must start Herald too.
    assert.equal(loadConfig({ SANDBOX_LATENCY_MS: '0' }).sandboxLatencyMs, 0);
    assert.equal(loadConfig({ SANDBOX_LATENCY_MS: '250' }).sandboxLatencyMs, 250);
    assert.throws(
      () => loadConfig({ SANDBOX_LATENCY_MS: '-1' }),
      /SANDBOX_LATENCY_MS must be a whole number of at least 0/,
    );
  });
});

/**
 * Loaded by every mocha run (.mocharc.json). mochaGlobalSetup runs once, before any test file: in parallel mode
 * (`make test`) before the workers start, so two workers' browser tests never build the web app at once, one
 * swapping dist/web under the other's server. The root hooks run in each process.
 */
import { ensureWebBuilt } from './web-build.js';
import { settleDrops } from './dropping.js';

export async function mochaGlobalSetup(): Promise<void> {
  await ensureWebBuilt();
}

export const mochaHooks = {
  afterAll: settleDrops,
};

/**
 * Runs once per mocha run, before any test file: in parallel mode (`make test`) before the workers start, so two
 * workers' browser tests never build the web app at once, one swapping dist/web under the other's server.
 */
import { ensureWebBuilt } from './app-browser.js';

export async function mochaGlobalSetup(): Promise<void> {
  await ensureWebBuilt();
}

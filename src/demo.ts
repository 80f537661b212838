import path from 'node:path';
import type { DomainDeps } from './domain/deps.js';
import { seedDemo, type DemoAccount } from './domain/provisioning.js';
import { writePrivateFile } from './files/data-dir.js';

/**
 * On an empty database, creates the demo account and writes its key and sign-in to DATA_DIR (mode 600)
 * for scripts. Returns undefined when the database already has accounts. Instances that start together on one
 * empty database seed it once: the look and the seeding are one transaction, one instance's at a time.
 */
export async function seedDemoIfEmpty(deps: DomainDeps, dataDir: string): Promise<DemoAccount | undefined> {
  if ((await deps.repos.accounts.countAccounts()) > 0) return undefined;
  const demo = await deps.repos.inTransaction(async (repos) => {
    await repos.accounts.lockFirstAccountCreation();
    if ((await repos.accounts.countAccounts()) > 0) return undefined;
    return seedDemo({ ...deps, repos });
  });
  if (!demo) return undefined;
  writePrivateFile(path.join(dataDir, 'demo-api-key'), demo.apiKey + '\n');
  writePrivateFile(
    path.join(dataDir, 'demo-credentials'),
    JSON.stringify({ email: demo.email, password: demo.password }) + '\n',
  );
  return demo;
}

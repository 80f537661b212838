import * as provisioning_ from '../../src/domain/provisioning.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';

/** Adds a channel on the given network to the account (its posts go through whatever the registry maps it to). */
export async function provisioning(t: TestHerald, a: SeededAccount, network: string): Promise<string> {
  return (
    await provisioning_.addChannel(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      network,
      handle: `@${network}`,
      timezone: 'UTC',
    })
  ).id;
}

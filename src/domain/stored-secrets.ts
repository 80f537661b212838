/**
 * Everything Herald keeps sealed in its tables beside the instance secrets (instance-secrets.ts): channel
 * credentials, connect flows, network app registrations and webhook signing secrets. `herald secrets rotate`
 * seals them again under the current master key; each keeps the name it is bound to.
 */
import type { Repositories } from '../db/repositories/index.js';
import { appName, credentialsName, flowName } from './networks/credential-vault.js';
import type { SecretBox } from './secret-box.js';
import { secretName } from './webhooks/webhook-endpoints.js';

/**
 * Seals every channel credential, connect flow, network app registration and webhook signing secret again
 * under the current master key (`herald secrets rotate`). Everything is opened before anything is written, and written
 * in one transaction: a value no held key opens changes nothing.
 */
export async function resealStoredSecrets(repos: Repositories, box: SecretBox): Promise<number> {
  const credentials = (await repos.channels.allSealedCredentials()).map((row) => {
    const name = credentialsName(row.id);
    return { row, next: box.seal(name, box.open(name, row.sealed)) };
  });
  const others = (await repos.connectFlows.allSealed()).map((row) => {
    const name =
      row.table === 'connect_flows'
        ? flowName(row.key.state_hash)
        : appName(row.key.network, row.key.origin, row.key.redirect_uri);
    return { row, next: box.seal(name, box.open(name, row.sealed)) };
  });
  const webhookSecrets = (await repos.webhooks.allSealedSecrets()).map((row) => ({
    row,
    next: box.seal(secretName(row.id), box.open(secretName(row.id), row.sealed)),
  }));
  await repos.inTransaction(async (trx) => {
    for (const { row, next } of credentials) await trx.channels.resealCredentials(row.id, row.sealed, next);
    for (const { row, next } of others) await trx.connectFlows.reseal(row.table, row.key, row.sealed, next);
    for (const { row, next } of webhookSecrets) await trx.webhooks.resealSecret(row.id, row.sealed, next);
  });
  return credentials.length + others.length + webhookSecrets.length;
}

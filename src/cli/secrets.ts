/**
 * `herald secrets rotate`: seals every stored secret again under a new master key.
 * - With HERALD_SECRET_KEY set, that is the new key; the old one is HERALD_PREVIOUS_SECRET_KEY or, when
 *   moving from a generated key to a configured one, DATA_DIR/secret.key.
 * - Without it, DATA_DIR/secret.key is replaced by a new random key; the old one stays beside it as
 *   secret.key.previous until every secret is sealed again, then it is deleted; a rotation cut short is
 *   finished by running the command again (`resumed`), never started over on top of it.
 * - Every secret is sealed again in one transaction: a secret no given key opens changes nothing.
 * Instances started before the rotation keep working (they read secrets at start); restart them with the
 * new key.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { InstanceSecretsRepository } from '../db/repositories/instance-secrets.js';
import { resealInstanceSecrets } from '../domain/instance-secrets.js';
import { resealStoredSecrets } from '../domain/stored-secrets.js';
import { createRepositories } from '../db/repositories/index.js';
import { parseMasterKey, SecretBox } from '../domain/secret-box.js';
import { forgetPreviousKeyFile, loadMasterKeys, rotateKeyFile, SECRET_KEY_FILE } from '../storage/master-key.js';

export async function rotateSecrets(config: Config): Promise<{ resealed: number; keyId: string; resumed: boolean }> {
  const keyFile = path.join(config.dataDir, SECRET_KEY_FILE);
  const resumed = !config.secretKey && fs.existsSync(`${keyFile}.previous`);
  if (!config.secretKey) rotateKeyFile(config);
  const keys = loadMasterKeys(config);
  const previous = [...keys.previous];
  if (config.secretKey && fs.existsSync(keyFile))
    previous.push(parseMasterKey(fs.readFileSync(keyFile, 'utf8'), keyFile));
  const box = new SecretBox(keys.current, previous);
  const db = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const resealed =
      (await resealInstanceSecrets(new InstanceSecretsRepository(db), box)) +
      (await resealStoredSecrets(createRepositories(db), box));
    if (!config.secretKey) forgetPreviousKeyFile(config);
    return { resealed, keyId: box.currentKeyId, resumed };
  } finally {
    await db.destroy();
  }
}

/**
 * Secrets every instance shares (the cursor and signed-link keys), kept in the database sealed under the
 * master key (secret-box.ts).
 * - The first instance to start creates each one; every other instance reads the same value.
 * - A value stored in plain text (before sealing existed) or under the previous key is sealed again
 *   under the current key when read, so a rotation finishes by itself as instances start.
 */
import crypto from 'node:crypto';
import type { InstanceSecretsRepository } from '../db/repositories/instance-secrets.js';
import type { SecretBox } from './secret-box.js';

export interface InstanceSecrets {
  cursorKey: string;
  /** Signs short-lived links: media upload URLs and in-app calendar links. */
  linkKey: string;
}

export async function loadInstanceSecrets(repo: InstanceSecretsRepository, box: SecretBox): Promise<InstanceSecrets> {
  return { cursorKey: await instanceSecret(repo, box, 'cursor'), linkKey: await instanceSecret(repo, box, 'signed_links') };
}

async function instanceSecret(repo: InstanceSecretsRepository, box: SecretBox, name: string): Promise<string> {
  const stored = await repo.insertIfAbsent(name, box.seal(name, crypto.randomBytes(32).toString('base64url')));
  const value = box.isSealed(stored) ? box.open(name, stored) : stored;
  if (box.isStale(stored)) await repo.replace(name, box.seal(name, value));
  return value;
}

/** Seals every instance secret again under the current key (`herald secrets rotate`); returns how many. */
export async function resealInstanceSecrets(repo: InstanceSecretsRepository, box: SecretBox): Promise<number> {
  const rows = await repo.all();
  for (const row of rows) await repo.replace(row.name, box.seal(row.name, box.isSealed(row.value) ? box.open(row.name, row.value) : row.value));
  return rows.length;
}

/**
 * Secrets every instance shares (the cursor and signed-link keys), kept in the database sealed under the
 * master key (secret-box.ts).
 * - The first instance to start creates each one; every other instance reads the same value.
 * - On start, every stored value that is plain text (written before sealing existed) or sealed under a
 *   previous key is sealed again under the current key, whichever secret it is, so nothing stays open
 *   and a rotation finishes by itself as instances start.
 * - Secrets Herald no longer uses are deleted on start rather than left lying in the table.
 * - Resealing is all or nothing: a value no known key opens stops it before anything changes.
 */
import crypto from 'node:crypto';
import type { InstanceSecretsRepository } from '../db/repositories/instance-secrets.js';
import type { SecretBox } from './secret-box.js';

export interface InstanceSecrets {
  cursorKey: string;
  /** Signs short-lived links: media upload URLs and in-app calendar links. */
  linkKey: string;
}

/** oauth_session signed the consent pages' sign-in cookie until sessions moved to the server (migration 006). */
const RETIRED = ['oauth_session'];

export async function loadInstanceSecrets(repo: InstanceSecretsRepository, box: SecretBox): Promise<InstanceSecrets> {
  await repo.delete(RETIRED);
  const cursor = await instanceSecret(repo, box, 'cursor');
  const signedLinks = await instanceSecret(repo, box, 'signed_links');
  if ((await repo.all()).some((row) => box.isStale(row.value))) {
    await repo.rewriteAll((name, value) => (box.isStale(value) ? box.seal(name, opened(box, name, value)) : undefined));
  }
  return { cursorKey: cursor, linkKey: signedLinks };
}

async function instanceSecret(repo: InstanceSecretsRepository, box: SecretBox, name: string): Promise<string> {
  const stored = await repo.insertIfAbsent(name, box.seal(name, crypto.randomBytes(32).toString('base64url')));
  return opened(box, name, stored);
}

function opened(box: SecretBox, name: string, stored: string): string {
  return box.isSealed(stored) ? box.open(name, stored) : stored;
}

/** Seals every instance secret again under the current key (`herald secrets rotate`); returns how many. */
export async function resealInstanceSecrets(repo: InstanceSecretsRepository, box: SecretBox): Promise<number> {
  return repo.rewriteAll((name, value) => box.seal(name, opened(box, name, value)));
}

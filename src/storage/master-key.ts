/**
 * The instance master key that seals secrets at rest: HERALD_SECRET_KEY when set, otherwise
 * DATA_DIR/secret.key, generated on first start (mode 0600), with a warning on every start when the
 * database is shared (Postgres) since each instance has its own DATA_DIR. HERALD_PREVIOUS_SECRET_KEY,
 * during a rotation, still opens what the old key sealed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { MasterKeyError, parseMasterKey } from '../domain/secret-box.js';
import { writePrivateFile } from '../files/data-dir.js';

export const SECRET_KEY_FILE = 'secret.key';

export interface MasterKeys {
  current: Buffer;
  previous: Buffer[];
}

export function loadMasterKeys(config: Config, warn: (message: string) => void = () => undefined): MasterKeys {
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  const previous = [
    ...(config.previousSecretKey ? [parseMasterKey(config.previousSecretKey, 'HERALD_PREVIOUS_SECRET_KEY')] : []),
    ...(fs.existsSync(`${file}.previous`)
      ? [parseMasterKey(fs.readFileSync(`${file}.previous`, 'utf8'), `${file}.previous`)]
      : []),
  ];
  if (config.secretKey) return { current: parseMasterKey(config.secretKey, 'HERALD_SECRET_KEY'), previous };
  if (!fs.existsSync(file)) writePrivateFile(file, crypto.randomBytes(32).toString('base64') + '\n');
  // Said on every start: a second instance on the same database with its own DATA_DIR would make its own key.
  if (config.databaseUrl)
    warn(
      `The master key is ${file}. Every instance on this database needs the same key: ` +
        'set HERALD_SECRET_KEY to its contents on all of them.',
    );
  return { current: parseMasterKey(fs.readFileSync(file, 'utf8'), file), previous };
}

/**
 * `herald secrets rotate` without HERALD_SECRET_KEY: the key file is replaced by a new key and the old one
 * kept beside it as secret.key.previous until everything is sealed again (forgetPreviousKeyFile), so a
 * rotation cut short leaves every secret readable. While secret.key.previous exists, a rotation is still
 * under way: running the command again finishes it with the same two keys instead of overwriting the old
 * one, which may still be the only key to some stored secret.
 */
export function rotateKeyFile(config: Config): void {
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  if (fs.existsSync(`${file}.previous`)) return;
  if (!fs.existsSync(file)) {
    throw new MasterKeyError(
      `There is no ${file} to rotate. Set HERALD_SECRET_KEY to the key this instance uses, ` +
        'or start Herald once to generate one.',
    );
  }
  writePrivateFile(`${file}.previous`, fs.readFileSync(file, 'utf8'));
  writePrivateFile(file, crypto.randomBytes(32).toString('base64') + '\n');
}

export function forgetPreviousKeyFile(config: Config): void {
  fs.rmSync(path.join(config.dataDir, `${SECRET_KEY_FILE}.previous`), { force: true });
}

/**
 * DATA_DIR holds the SQLite database, the master key, media and the demo credentials: only Herald's user
 * may read it. The directory is 0700 (a looser existing one is tightened, and said so), and every file
 * Herald writes in it is 0600. SQLite gives its -wal and -shm files the database file's mode, so the
 * database file is created 0600 before SQLite opens it.
 */
import fs from 'node:fs';
import path from 'node:path';

export function prepareDataDir(dataDir: string, warn: (message: string) => void = () => undefined): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dataDir).mode & 0o777;
  if (mode !== 0o700) {
    fs.chmodSync(dataDir, 0o700);
    warn(`DATA_DIR ${dataDir} was readable by others (mode ${mode.toString(8)}); it is now 0700.`);
  }
}

/** Creates `file` empty with mode 0600 if it does not exist, and tightens it if it does. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  tightenPrivateFile(file);
}

/**
 * Tightens `file` to 0600 if it exists. SQLite keeps a -wal or -shm file it finds (one an older version
 * left 0644, say) with the mode it has, so these are tightened after the database is opened.
 */
export function tightenPrivateFile(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o777) !== 0o600) fs.chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Writes `file` with mode 0600; an existing looser file is tightened before the content goes in. */
export function writePrivateFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  ensurePrivateFile(file);
  fs.writeFileSync(file, content, { mode: 0o600 });
}

/** Bytes free in DATA_DIR's file system for Herald's user (statfs: blocks available to unprivileged users). */
export async function freeBytes(dataDir: string): Promise<number> {
  const stats = await fs.promises.statfs(dataDir);
  return stats.bavail * stats.bsize;
}

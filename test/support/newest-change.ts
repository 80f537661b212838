import fs from 'node:fs';
import path from 'node:path';

/** When anything under `dir` last changed (ms): a build is stale when its sources are newer than it. */
export function newestChange(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

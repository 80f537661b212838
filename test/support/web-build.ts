/**
 * The web app built once per run, and only when what it is made of changed since the last build: web/, the SDK, the
 * generated types, the domain rules it runs. Apart from app-browser.ts so that make test and global-setup.ts, which
 * build it before the tests start, load neither Chromium's driver nor a Herald to do it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildWeb, WEB_DIST } from '../../scripts/build-web.js';
import { newestChange } from './newest-change.js';

let built: Promise<unknown> | undefined;

export function ensureWebBuilt(): Promise<unknown> {
  built ??= (async () => {
    const manifest = path.join(WEB_DIST, 'manifest.json');
    // The bundle also takes the domain rules the browser runs as they are (ARCHITECTURE.md, The web app).
    const inputs = ['web/src', 'sdk/src', 'generated/rest', 'src/domain'];
    const sources = Math.max(...inputs.map((dir) => newestChange(path.resolve(dir))));
    if (fs.existsSync(manifest) && fs.statSync(manifest).mtimeMs > sources) return;
    await buildWeb();
  })();
  return built;
}

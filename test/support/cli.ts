/**
 * The herald CLI as the tests run it: src/cli/main.ts bundled once (packages left to node_modules) into
 * dist/test-cli, and run with plain Node. Through tsx (bin/herald.mjs with HERALD_FROM_SOURCE=1) each command cost
 * about a second of CPU loading the compiler and its cache before Herald's own code; the bundle starts in a fifth.
 * It is rebuilt when anything under src/ or generated/ is newer, written beside the old one and renamed into place,
 * so two test processes building at once never run half a file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { newestChange } from './newest-change.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The bundled CLI: `node HERALD_CLI <command> ...` is `herald <command> ...`. */
export const HERALD_CLI = path.join(ROOT, 'dist', 'test-cli', 'herald.mjs');

let built: Promise<string> | undefined;

/**
 * Builds the CLI when its sources changed since the last build and answers where it is. The build is split at the
 * CLI's own `import()`s, as Node runs the compiled CLI (`herald --help` loads none of the server): each build goes to
 * a folder of its own, and HERALD_CLI, a one-line module importing it, is renamed into place once it is whole. The
 * build before stays, for a process started from it that has not yet loaded all its parts.
 */
export function ensureCliBuilt(): Promise<string> {
  built ??= (async () => {
    const sources = Math.max(...['src', 'generated'].map((dir) => newestChange(path.join(ROOT, dir))));
    if (fs.existsSync(HERALD_CLI) && fs.statSync(HERALD_CLI).mtimeMs > sources) return HERALD_CLI;
    const dir = path.dirname(HERALD_CLI);
    const name = `build-${Date.now()}-${process.pid}`;
    await esbuild.build({
      entryPoints: { herald: path.join(ROOT, 'src', 'cli', 'main.ts') },
      outdir: path.join(dir, name),
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
    });
    const building = `${HERALD_CLI}.${process.pid}.tmp`;
    fs.writeFileSync(building, `import './${name}/herald.js';\n`);
    fs.renameSync(building, HERALD_CLI);
    const builds = fs.readdirSync(dir).filter((entry) => entry.startsWith('build-'));
    for (const old of builds.sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1])).slice(0, -2))
      fs.rmSync(path.join(dir, old), { recursive: true, force: true });
    return HERALD_CLI;
  })();
  return built;
}

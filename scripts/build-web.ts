/**
 * Builds the web app (web/) into dist/web: one bundle of script and one of style, each named by its content's
 * hash so Herald can serve them cached for a year, and manifest.json naming them for the page that loads them.
 * Beside them, the API reference at /docs: Redoc's standalone bundle, copied from its package (served by Herald,
 * never from a CDN), and the small script that starts it (web/src/api-reference.ts).
 * The new build is written beside the old one and swapped in, so a server reading dist/web never sees half a build.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_DIST = path.join(ROOT, 'dist', 'web');

export interface WebManifest {
  script: string;
  style: string;
  /** The API reference's renderer and the script that starts it. */
  reference: { renderer: string; script: string };
}

const BUNDLE = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'silent',
  legalComments: 'linked',
} as const;

/** Redoc's standalone bundle, named by its content's hash like the app's own files. */
function copyRenderer(assets: string): string {
  let source: string;
  try {
    source = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch (cause) {
    throw new Error('The API reference needs the redoc package, which is not installed: run make install.', { cause });
  }
  const bytes = fs.readFileSync(source);
  const name = `redoc-${crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 8).toUpperCase()}.js`;
  fs.writeFileSync(path.join(assets, name), bytes);
  fs.copyFileSync(`${source}.LICENSE.txt`, path.join(assets, `${name}.LICENSE.txt`));
  return name;
}

export async function buildWeb(outDir = WEB_DIST): Promise<WebManifest> {
  const staging = `${outDir}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  const assets = path.join(staging, 'assets');
  const [result, reference] = await Promise.all([
    esbuild.build({
      ...BUNDLE,
      entryPoints: [path.join(ROOT, 'web', 'src', 'main.tsx')],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: assets,
    }),
    esbuild.build({ ...BUNDLE, entryPoints: [path.join(ROOT, 'web', 'src', 'api-reference.ts')], outdir: assets }),
  ]);
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const manifest: WebManifest = {
    script: outputs.find((f) => f.endsWith('.js'))!,
    style: outputs.find((f) => f.endsWith('.css'))!,
    reference: {
      renderer: copyRenderer(assets),
      script: Object.keys(reference.metafile.outputs)
        .map((f) => path.basename(f))
        .find((f) => f.endsWith('.js'))!,
    },
  };
  fs.writeFileSync(path.join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const retired = `${outDir}.${process.pid}.old`;
  if (fs.existsSync(outDir)) fs.renameSync(outDir, retired);
  fs.renameSync(staging, outDir);
  fs.rmSync(retired, { recursive: true, force: true });
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const manifest = await buildWeb();
  console.log(`web app built into ${path.relative(process.cwd(), WEB_DIST)}: ${manifest.script}, ${manifest.style}`);
}

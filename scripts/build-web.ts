/**
 * Builds the web app (web/) into dist/web: one bundle of script and one of style, each named by its content's
 * hash so Herald can serve them cached for a year, and manifest.json naming them for the page that loads them.
 * The new build is written beside the old one and swapped in, so a server reading dist/web never sees half a build.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_DIST = path.join(ROOT, 'dist', 'web');

export interface WebManifest {
  script: string;
  style: string;
}

export async function buildWeb(outDir = WEB_DIST): Promise<WebManifest> {
  const staging = `${outDir}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'web', 'src', 'main.tsx')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: 'linked',
    outdir: path.join(staging, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'silent',
    legalComments: 'linked',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const manifest: WebManifest = {
    script: outputs.find((f) => f.endsWith('.js'))!,
    style: outputs.find((f) => f.endsWith('.css'))!,
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

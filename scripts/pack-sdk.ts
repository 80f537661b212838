/**
 * make sdk: builds sdk/ (the @herald/sdk package) with tsc into JavaScript and type declarations, and packs it with
 * npm into dist/ as a tarball that installs with no registry: the packages it needs at run time (openapi-fetch and
 * what that needs) are bundled in it, copied from this repository's node_modules at the versions the lockfile chose.
 * The package is assembled in a folder of its own, so sdk/ holds only sources.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SDK = path.join(ROOT, 'sdk');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  bundleDependencies?: string[];
}

const readManifest = (dir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));

/** Builds and packs the SDK into outDir; returns the tarball's path. */
export function packSdk(outDir = path.join(ROOT, 'dist')): string {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-sdk-'));
  try {
    execFileSync(
      path.join(ROOT, 'node_modules', '.bin', 'tsc'),
      ['-p', path.join(SDK, 'tsconfig.json'), '--outDir', path.join(staging, 'dist')],
      { stdio: 'inherit' },
    );
    for (const file of ['package.json', 'README.md']) fs.copyFileSync(path.join(SDK, file), path.join(staging, file));
    const manifest = readManifest(SDK);
    const bundled = new Set<string>();
    const bundle = (name: string) => {
      if (bundled.has(name)) return;
      bundled.add(name);
      const from = path.join(ROOT, 'node_modules', name);
      fs.cpSync(from, path.join(staging, 'node_modules', name), { recursive: true, dereference: true });
      for (const dependency of Object.keys(readManifest(from).dependencies ?? {})) bundle(dependency);
    };
    for (const name of manifest.bundleDependencies ?? []) bundle(name);
    fs.mkdirSync(outDir, { recursive: true });
    const packed = execFileSync('npm', ['pack', '--offline', '--json', '--pack-destination', outDir], {
      cwd: staging,
      encoding: 'utf8',
    });
    return path.join(outDir, (JSON.parse(packed) as { filename: string }[])[0].filename);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`@herald/sdk packed: ${path.relative(process.cwd(), packSdk())}`);
}

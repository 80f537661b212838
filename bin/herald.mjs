#!/usr/bin/env node
// Runs the built CLI when `make build` has produced it, else the TypeScript source through tsx.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'src', 'cli', 'main.js');
if (fs.existsSync(built) && process.env.HERALD_FROM_SOURCE !== '1') {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src', 'cli', 'main.ts')).href);
}

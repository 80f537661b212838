/**
 * make generate: turns the handwritten specs into generated/. Deterministic, so a clean checkout
 * regenerates to no diff (CI checks that).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateRest } from './generate/rest.js';
import { generateMcp } from './generate/mcp.js';
import { writeOutputs, type Output } from './generate/output.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const rest = await generateRest(root);
const openapi = JSON.parse(rest.find((o) => o.file === 'openapi.json')!.content);
const outputs: Output[] = [
  ...rest,
  ...(await generateMcp(root, openapi)),
];
const changed = writeOutputs(path.join(root, 'generated'), outputs);
console.log(`generated/: ${outputs.length} files, ${changed} changed`);

/**
 * make generate: turns the handwritten specs into generated/, and the MCP tools' reference into docs/mcp-tools.md.
 * Deterministic, so a clean checkout regenerates to no diff (CI checks that).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateRest } from './generate/rest.js';
import { generateMcp } from './generate/mcp.js';
import { MCP_REFERENCE_FILE, mcpToolsReference } from './generate/mcp-reference.js';
import { writeOutputs, type Output } from './generate/output.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const rest = await generateRest(root);
const openapi = JSON.parse(rest.find((o) => o.file === 'openapi.json')!.content);
const outputs: Output[] = [...rest, ...(await generateMcp(root, openapi))];
const changed = writeOutputs(path.join(root, 'generated'), outputs);
console.log(`generated/: ${outputs.length} files, ${changed} changed`);

const reference = path.join(root, MCP_REFERENCE_FILE);
const written = mcpToolsReference(root);
if (!fs.existsSync(reference) || fs.readFileSync(reference, 'utf8') !== written) {
  fs.writeFileSync(reference, written);
  console.log(`${MCP_REFERENCE_FILE} written`);
}

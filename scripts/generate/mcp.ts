/**
 * MCP tool contracts: jsonrpc-schemas/<tool>.json -> generated/mcp/.
 * - Every file is checked against the tool-file shape below and its schemas are compiled with ajv (JSON
 *   Schema draft 2020-12, strict), so a bad schema fails `make generate`, not a client.
 * - `$ref`s to `../openapi/openapi.yaml#/components/schemas/X` reuse the REST shapes (Post, Channel, ...):
 *   they are copied into each tool's `$defs`, so every published schema is self-contained.
 * - Emits argument and result types (openapi-typescript over a synthetic document whose components are the
 *   tool schemas), the ToolHandlers interface, the tool catalogue and ajv validators compiled ahead of time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { _ } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import { HEADER, type Output } from './output.js';

const OPENAPI_REF = '../openapi/openapi.yaml#/components/schemas/';
const COMPONENT_REF = '#/components/schemas/';
const SCOPES = ['manage_post', 'manage_team'];

/** The shape of one jsonrpc-schemas/ file. */
const toolFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'title', 'description', 'x-herald-scope', 'annotations', 'inputSchema', 'outputSchema'],
  properties: {
    name: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string', minLength: 40 },
    'x-herald-scope': { enum: SCOPES },
    // Tools that also spend the account's write minute budget (SPEC: AI requests count as writes).
    'x-herald-rate-limit': { enum: ['write'] },
    annotations: {
      type: 'object',
      additionalProperties: false,
      required: ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'],
      properties: {
        readOnlyHint: { type: 'boolean' },
        destructiveHint: { type: 'boolean' },
        idempotentHint: { type: 'boolean' },
        openWorldHint: { type: 'boolean' },
      },
    },
    // MCP 2025-11-25: whether a client may run the tool as a task (absent: it may not).
    execution: {
      type: 'object',
      additionalProperties: false,
      required: ['taskSupport'],
      properties: { taskSupport: { enum: ['optional', 'required', 'forbidden'] } },
    },
    inputSchema: {
      type: 'object',
      required: ['type', 'additionalProperties'],
      properties: { type: { const: 'object' }, additionalProperties: { const: false } },
    },
    outputSchema: { type: 'object', required: ['type'], properties: { type: { const: 'object' } } },
  },
};

interface ToolFile {
  name: string;
  title: string;
  description: string;
  'x-herald-scope': string;
  'x-herald-rate-limit'?: 'write';
  annotations: Record<string, boolean>;
  execution?: { taskSupport: 'optional' | 'required' | 'forbidden' };
  inputSchema: Schema;
  outputSchema: Schema;
}

type Schema = Record<string, unknown>;

/**
 * Strict ajv. Argument validators fill in defaults (`dryRun: true`), so a default nested where ajv cannot
 * apply it (inside oneOf) is tolerated there; result validators never change what they check.
 */
function newAjv(options: { code?: object; useDefaults?: boolean } = {}) {
  const failOn = (message: string) => {
    if (!(options.useDefaults && /^strict mode: default is ignored/.test(message))) throw new Error(message);
  };
  const ajv = new Ajv2020.default({
    allErrors: true,
    strict: true,
    strictSchema: 'log',
    logger: { log: () => undefined, warn: failOn, error: failOn },
    useDefaults: options.useDefaults ?? false,
    code: options.code,
  });
  addFormats.default(ajv);
  // Annotation keywords the REST components carry (OpenAPI's `example`); they do not validate anything.
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

/** Rewrites refs with `rewrite`, collecting the REST component names they point at. */
function mapRefs(value: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapRefs(v, rewrite));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? rewrite(v) : mapRefs(v, rewrite),
      ]),
    );
  }
  return value;
}

/** The REST components a schema needs, transitively, in a stable order. */
function componentsUsed(schema: unknown, components: Record<string, Schema>): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    mapRefs(value, (ref) => {
      const name = ref.startsWith(OPENAPI_REF)
        ? ref.slice(OPENAPI_REF.length)
        : ref.startsWith(COMPONENT_REF)
          ? ref.slice(COMPONENT_REF.length)
          : undefined;
      if (name === undefined) throw new Error(`unsupported $ref ${ref}: use ${OPENAPI_REF}<Name>`);
      if (!components[name]) throw new Error(`$ref ${ref}: openapi has no components.schemas.${name}`);
      if (!found.has(name)) {
        found.add(name);
        visit(components[name]);
      }
      return ref;
    });
  };
  visit(schema);
  return [...found].sort();
}

/** A self-contained copy of a tool schema: REST components copied under $defs. */
function selfContained(schema: Schema, components: Record<string, Schema>): Schema {
  const toDefs = (ref: string) => '#/$defs/' + ref.replace(OPENAPI_REF, '').replace(COMPONENT_REF, '');
  const used = componentsUsed(schema, components);
  const out = mapRefs(schema, toDefs) as Schema;
  if (used.length === 0) return out;
  return { ...out, $defs: Object.fromEntries(used.map((name) => [name, mapRefs(components[name], toDefs)])) };
}

const pascal = (name: string) => name.replace(/(^|_)([a-z0-9])/g, (_m, _s, c: string) => c.toUpperCase());

export function readToolFiles(root: string): ToolFile[] {
  const dir = path.join(root, 'jsonrpc-schemas');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const checkShape = newAjv().compile(toolFileSchema);
  return files.map((file) => {
    const tool = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as ToolFile;
    if (!checkShape(tool)) throw new Error(`jsonrpc-schemas/${file}: ${JSON.stringify(checkShape.errors)}`);
    if (`${tool.name}.json` !== file)
      throw new Error(`jsonrpc-schemas/${file}: name ${tool.name} must match the file name`);
    return tool;
  });
}

export async function generateMcp(
  root: string,
  openapi: { components: { schemas: Record<string, Schema> } },
): Promise<Output[]> {
  const components = openapi.components.schemas;
  const tools = readToolFiles(root);

  // Validators: compiled once here; the runtime only loads the emitted code.
  const code = { source: true, esm: true, formats: _`formats` };
  const compilers = { arguments: newAjv({ code, useDefaults: true }), result: newAjv({ code }) };
  const exports = { arguments: {} as Record<string, string>, result: {} as Record<string, string> };
  // The REST components are compiled once each and shared by the tools that use them.
  const toShared = (ref: string) => 'herald:components:' + ref.replace(OPENAPI_REF, '').replace(COMPONENT_REF, '');
  for (const name of componentsUsed(
    tools.map((t) => [t.inputSchema, t.outputSchema]),
    components,
  )) {
    for (const compiler of Object.values(compilers))
      compiler.addSchema({ ...(mapRefs(components[name], toShared) as Schema), $id: toShared(name) });
  }
  const catalogue = tools.map((tool) => {
    const inputSchema = selfContained(tool.inputSchema, components);
    const outputSchema = selfContained(tool.outputSchema, components);
    for (const [kind, schema] of [
      ['arguments', tool.inputSchema],
      ['result', tool.outputSchema],
    ] as const) {
      const id = `herald:${tool.name}:${kind}`;
      try {
        compilers[kind].addSchema({ ...(mapRefs(schema, toShared) as Schema), $id: id });
        compilers[kind].getSchema(id);
      } catch (error) {
        throw new Error(`jsonrpc-schemas/${tool.name}.json ${kind}: ${(error as Error).message}`);
      }
      exports[kind][tool.name] = id;
    }
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema,
      outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
      ...(tool.execution ? { execution: tool.execution } : {}),
      scope: tool['x-herald-scope'],
      chargesWriteBudget: tool['x-herald-rate-limit'] === 'write',
    };
  });
  const standalone = (
    kind: 'arguments' | 'result',
  ) => `${HEADER}// @ts-nocheck: ajv standalone code (see scripts/generate/mcp.ts), typed through validators.ts.
import { createRequire } from 'node:module';
import { fullFormats as formats } from 'ajv-formats/dist/formats.js';
const require = createRequire(import.meta.url);
${standaloneCode.default(compilers[kind], exports[kind]).replace(/^"use strict";/, '')}
`;

  // Types: tool schemas become components of a synthetic OpenAPI document next to the REST components they use.
  const toComponent = (ref: string) => COMPONENT_REF + ref.replace(OPENAPI_REF, '').replace(COMPONENT_REF, '');
  const schemas: Record<string, unknown> = {};
  for (const name of componentsUsed(
    tools.map((t) => [t.inputSchema, t.outputSchema]),
    components,
  ))
    schemas[name] = components[name];
  for (const tool of tools) {
    schemas[`${pascal(tool.name)}Arguments`] = mapRefs(tool.inputSchema, toComponent);
    schemas[`${pascal(tool.name)}Result`] = mapRefs(tool.outputSchema, toComponent);
  }
  const synthetic = {
    openapi: '3.1.0',
    info: { title: 'Herald MCP tools', version: '1' },
    paths: {},
    components: { schemas },
  };
  const schemaTypes = astToString(
    await openapiTS(synthetic as never, { alphabetize: false, defaultNonNullable: false }),
  );

  const names = tools.map((t) => t.name);
  const types = `${HEADER}${schemaTypes}
export type ToolName = ${names.map((n) => `'${n}'`).join(' | ')};

/** What each tool accepts (\`params.arguments\` of tools/call). */
export interface ToolArguments {
${names.map((n) => `  ${n}: components['schemas']['${pascal(n)}Arguments'];`).join('\n')}
}

/** What each tool answers (\`structuredContent\` of its result). */
export interface ToolResults {
${names.map((n) => `  ${n}: components['schemas']['${pascal(n)}Result'];`).join('\n')}
}
`;

  const handlers = `${HEADER}import type { ToolArguments, ToolName, ToolResults } from './types.js';

export type { ToolArguments, ToolName, ToolResults };
export type ToolScope = 'manage_post' | 'manage_team';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One entry of tools/list, plus the scope the tool needs and whether it spends the write budget. */
export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
  /** MCP 2025-11-25 tool-level task negotiation; absent means the tool never runs as a task. */
  execution?: { taskSupport: 'optional' | 'required' | 'forbidden' };
  scope: ToolScope;
  chargesWriteBudget: boolean;
}

/** One method per tool of jsonrpc-schemas/: validated arguments in, the tool's result out; errors are thrown. */
export interface ToolHandlers<Context> {
${tools
  .map(
    (t) =>
      `  /** ${t.title} */\n  ${t.name}(args: ToolArguments['${t.name}'], context: Context): ` +
      `Promise<ToolResults['${t.name}']>;`,
  )
  .join('\n')}
}
`;

  const catalogueFile = `${HEADER}import type { ToolDefinition } from './handlers.js';

export const toolCatalogue: readonly ToolDefinition[] = ${JSON.stringify(catalogue, null, 2)};
`;

  const validatorIndex = `${HEADER}import * as compiledArguments from './validate-arguments.js';
import * as compiledResults from './validate-results.js';
import type { ToolName } from './types.js';

export interface ValidationProblem {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** An ajv validator compiled ahead of time: true when \`data\` fits (defaults are filled in). */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ValidationProblem[] | null;
}

/** Checks tools/call arguments and fills in schema defaults. */
export const argumentValidators = compiledArguments as unknown as Record<ToolName, CompiledValidator>;
/** Checks a handler's result against the tool's outputSchema (used when responses are validated). */
export const resultValidators = compiledResults as unknown as Record<ToolName, CompiledValidator>;
`;

  return [
    { file: 'mcp/types.ts', content: types },
    { file: 'mcp/handlers.ts', content: handlers },
    { file: 'mcp/catalogue.ts', content: catalogueFile },
    { file: 'mcp/validate-arguments.ts', content: standalone('arguments') },
    { file: 'mcp/validate-results.ts', content: standalone('result') },
    { file: 'mcp/validators.ts', content: validatorIndex },
  ];
}

/**
 * docs/mcp-tools.md: the reference of the MCP tools, written from jsonrpc-schemas/ by `make generate`, so it says
 * what the server answers in tools/list: each tool's description, scope, hints, arguments and result.
 */
import { readToolFiles } from './mcp.js';

type Schema = Record<string, unknown>;

export const MCP_REFERENCE_FILE = 'docs/mcp-tools.md';

/** One line of a table cell: no pipes or line breaks to break the table. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}

function range(schema: Schema, unit: string): string {
  const min = schema[unit === 'characters' ? 'minLength' : unit === 'items' ? 'minItems' : 'minimum'] as
    | number
    | undefined;
  const max = schema[unit === 'characters' ? 'maxLength' : unit === 'items' ? 'maxItems' : 'maximum'] as
    | number
    | undefined;
  const of = unit === 'number' ? '' : ` ${unit}`;
  if (min !== undefined && max !== undefined) return min === max ? ` (${min}${of})` : ` (${min} to ${max}${of})`;
  if (max !== undefined) return ` (at most ${max}${of})`;
  if (min !== undefined) return ` (at least ${min}${of})`;
  return '';
}

/** A schema's type in a few words: `string (1 to 64 characters)`, `array of string`, `Post`. */
function typeOf(schema: Schema): string {
  if (typeof schema.$ref === 'string') return `\`${schema.$ref.split('/').pop()}\``;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`;
  if ('const' in schema) return `\`${JSON.stringify(schema.const)}\``;
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[key])) return (schema[key] as Schema[]).map(typeOf).join(' or ');
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : ((schema.type as string | undefined) ?? 'any');
  if (type === 'string')
    return `string${schema.format ? ` (${schema.format as string})` : ''}${range(schema, 'characters')}`;
  if (type === 'integer' || type === 'number') return `${type}${range(schema, 'number')}`;
  if (type === 'array')
    return `array of ${schema.items ? typeOf(schema.items as Schema) : 'any'}${range(schema, 'items')}`;
  return type;
}

function propertyTable(schema: Schema): string[] {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  if (properties.length === 0) return ['None.'];
  const required = new Set((schema.required ?? []) as string[]);
  return [
    '| Name | Type | Required | Description |',
    '|---|---|---|---|',
    ...properties.map(([name, property]) => {
      const defaults = 'default' in property ? ` Default: \`${JSON.stringify(property.default)}\`.` : '';
      const description = cell(`${(property.description as string | undefined) ?? ''}${defaults}`);
      return `| \`${name}\` | ${cell(typeOf(property))} | ${required.has(name) ? 'yes' : 'no'} | ${description} |`;
    }),
  ];
}

function yes(value: boolean): string {
  return value ? 'yes' : 'no';
}

/** A tool's scope and hints in one sentence each. */
function facts(tool: ReturnType<typeof readToolFiles>[number]): string {
  const hints = tool.annotations;
  const budget = tool['x-herald-rate-limit'] ? ", and a write of the account's budget" : '';
  return [
    `Scope: \`${tool['x-herald-scope']}\`${budget}.`,
    `Read only: ${yes(hints.readOnlyHint)}. Destructive: ${yes(hints.destructiveHint)}.`,
    `Idempotent: ${yes(hints.idempotentHint)}. Reaches the networks: ${yes(hints.openWorldHint)}.`,
    ...(tool.execution ? [`Runs as a task: ${tool.execution.taskSupport}.`] : []),
  ].join(' ');
}

export function mcpToolsReference(root: string): string {
  const tools = readToolFiles(root);
  return [
    '# MCP tools',
    '',
    `<!-- Generated from jsonrpc-schemas/ by scripts/generate.ts (make generate). Do not edit. -->`,
    '',
    `Herald's MCP server (\`{BASE_URL}/mcp\`, see [mcp.md](mcp.md)) has ${tools.length} tools. Each needs the`,
    "`read_profile` scope and the one named below; a tool's hints tell a client whether it changes anything,",
    "whether calling it twice does more than once, and whether it reaches the social networks. The schemas' full",
    'text is in `jsonrpc-schemas/`, and `tools/list` answers it. A type in backticks (`Post`, `Channel`) is the REST',
    "API's shape of that name, shown in full by the API reference Herald serves at `/docs`.",
    '',
    ...tools.map((tool) => `- [\`${tool.name}\`](#${tool.name}): ${tool.title}`),
    '',
    ...tools.flatMap((tool) => [
      `## ${tool.name}`,
      '',
      `**${tool.title}.** ${tool.description}`,
      '',
      facts(tool),
      '',
      'Arguments:',
      '',
      ...propertyTable(tool.inputSchema),
      '',
      'Result:',
      '',
      ...propertyTable(tool.outputSchema),
      '',
    ]),
  ].join('\n');
}

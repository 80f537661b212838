/**
 * The house's layering (ARCHITECTURE.md), pinned as an allow-list: each folder of src/ names the folders
 * it may import. Static imports, `export ... from` and dynamic `import()` all count. A new folder must be
 * added here before anything may import it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/** The composition roots wire everything together and may import any folder. */
const ROOTS = ['app', 'server', 'cli', 'demo'];

const ALLOWED: Record<string, string[]> = {
  config: [],
  logger: [],
  files: [],
  domain: ['config', 'db', 'generated'],
  db: ['files'],
  http: ['domain', 'generated', 'logger'],
  rest: ['domain', 'http', 'generated', 'config'],
  mcp: ['domain', 'http', 'generated', 'config'],
  oauth: ['domain', 'http', 'generated', 'config'],
  web: ['domain', 'http', 'generated', 'config'],
  net: ['domain', 'config'],
  storage: ['domain', 'config', 'files'],
  publishing: ['domain', 'db', 'net', 'logger', 'config'],
};

/**
 * Adapters implement the domain's ports and may import from src/domain only those ports, the error types
 * they raise and the tables they are configured by. The publishing engine (publishing/*.ts) is a driver
 * like REST and MCP: it applies domain rules, so it is not on this list; its connectors are.
 */
const ADAPTERS = ['src/net/', 'src/storage/', 'src/publishing/networks/'];
const DOMAIN_PORTS = [
  'errors', 'ids', 'timers', 'outbound', 'secret-box',
  'media/media-storage', 'media/accepted-types',
  'networks/connector', 'networks/capabilities', 'networks/sandbox-store',
].map((name) => path.resolve('src/domain', `${name}.ts`));

/** Packages that belong to one layer only. */
const PACKAGES: { pattern: RegExp; only: string[] }[] = [
  { pattern: /^(knex|pg|better-sqlite3)$/, only: ['db'] },
  { pattern: /^(express|express-openapi-validator|json-rpc-2\.0)$/, only: ['http', 'rest', 'mcp', 'oauth', 'web', ...ROOTS] },
  { pattern: /^@node-oauth\//, only: ['oauth'] },
  { pattern: /^@aws-sdk\//, only: ['storage'] },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Every module a file names: import/export ... from '...', side-effect imports and import('...'). */
export function specifiers(source: string): string[] {
  const found = [
    ...source.matchAll(/^\s*(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  return found.map((m) => m[1]);
}

/** The src/ folder a path belongs to (a top-level file counts as its own folder), or 'generated'. */
function layerOf(file: string): string {
  const relative = path.relative('src', file);
  if (relative.startsWith('..')) return path.relative('.', file).startsWith('generated') ? 'generated' : 'outside';
  const [first, ...rest] = relative.split(path.sep);
  return rest.length > 0 ? first : first.replace(/\.(ts|js)$/, '');
}

describe('layering (ARCHITECTURE.md): an allow-list per folder of src/', () => {
  const files = sourceFiles('src');

  it('knows every folder of src/', () => {
    const layers = new Set(files.map(layerOf));
    const unknown = [...layers].filter((layer) => !(layer in ALLOWED) && !ROOTS.includes(layer));
    assert.deepEqual(unknown, [], 'add the new folder to ALLOWED with what it may import');
  });

  it('imports only what each folder is allowed', () => {
    const offenders: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (ROOTS.includes(from)) continue;
      for (const specifier of specifiers(fs.readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const to = layerOf(path.resolve(path.dirname(file), specifier));
        if (to !== from && !ALLOWED[from].includes(to)) offenders.push(`${file} imports ${specifier} (${from} -> ${to})`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('lets adapters take from the domain only its ports, errors and tables', () => {
    const offenders = files.filter((file) => ADAPTERS.some((folder) => file.startsWith(path.normalize(folder)))).flatMap((file) =>
      specifiers(fs.readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'))
        .filter((target) => layerOf(target) === 'domain' && !DOMAIN_PORTS.includes(target))
        .map((target) => `${file} imports ${path.relative('.', target)}`),
    );
    assert.deepEqual(offenders, []);
  });

  it('keeps each infrastructure package in its layer', () => {
    const offenders = files.flatMap((file) =>
      specifiers(fs.readFileSync(file, 'utf8'))
        .filter((specifier) => PACKAGES.some((p) => p.pattern.test(specifier) && !p.only.includes(layerOf(file))))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    assert.deepEqual(offenders, []);
  });

  it('reads export-from and dynamic import() too', () => {
    assert.deepEqual(specifiers("export { a } from '../x.js';\nconst m = await import('../y.js');\nimport '../z.js';"), ['../x.js', '../z.js', '../y.js']);
  });
});

/**
 * Rules of the domain the web app runs in the browser as they are (pure modules, no I/O): counting text the
 * networks' way must not be written twice.
 */
const WEB_SHARED_RULES: string[] = [
  'src/domain/networks/capabilities.ts', 'src/domain/networks/text-length.ts', 'src/domain/networks/post-fit.ts', 'src/domain/zoned-time.ts',
];

describe('the web app (web/src) reaches Herald only through the generated SDK', () => {
  const files = sourceFiles('web/src').concat(fs.readdirSync('web/src', { recursive: true }).map(String).filter((f) => f.endsWith('.tsx')).map((f) => path.join('web/src', f)));

  it('imports its own modules, the SDK, Preact and the shared pure rules only', () => {
    const offenders: string[] = [];
    for (const file of files) {
      for (const specifier of specifiers(fs.readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) {
          if (!/^preact(\/hooks)?$/.test(specifier)) offenders.push(`${file} imports the package ${specifier}`);
          continue;
        }
        const target = path.relative('.', path.resolve(path.dirname(file), specifier)).replace(/\.js$/, '.ts');
        const allowed = target.startsWith(path.normalize('web/src/')) || target === path.normalize('generated/sdk/index.ts') || WEB_SHARED_RULES.includes(target);
        if (!allowed) offenders.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});

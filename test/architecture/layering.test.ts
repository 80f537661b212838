/**
 * The house's layering (ARCHITECTURE.md, "Folders and what each may import"), pinned as an allow-list over the real
 * module graph: TypeScript's own resolution under tsconfig.json and web/tsconfig.json (module-graph.ts), so every
 * form of import counts: import and export ... from, type-only ones, import() with a string or template literal,
 * require() and createRequire's require functions. A module named by a computed expression cannot be checked and
 * fails the test. A new folder must be added to LAYERS before anything may import it.
 */
import assert from 'node:assert/strict';
import { moduleGraph, type Edge, type ModuleGraph } from './module-graph.js';
import { describeOnce } from '../support/databases.js';

/**
 * A layer holds files (a folder ending in '/' holds everything under it) and names what they may import: other
 * layers, whose files they may import, or '*'. A file obeys the most specific layer holding it (a file named
 * outright, then the longest folder; of two naming it, the one listed first), and may always import within that
 * layer. `packages`, where given, names every package the layer may import; it then imports no Node built-in.
 */
interface Layer {
  holds: string[];
  may: string[];
  packages?: RegExp;
}

/**
 * Ports of the domain: what adapters (net/, storage/, the connectors) may take from it, with the errors they raise
 * and the tables they are configured by. They import only each other, so an adapter gets nothing more through them.
 */
const DOMAIN_PORTS = [
  'errors',
  'ids',
  'timers',
  'outbound',
  'secret-box',
  'media/media-storage',
  'media/accepted-types',
  'networks/connector',
  'networks/capabilities',
  'networks/sandbox-store',
].map((name) => `src/domain/${name}.ts`);

/**
 * Rules of the domain the web app runs in the browser as they are (pure modules, no I/O), so counting text the
 * networks' way is never written twice, with the errors they throw. They may import only each other: the browser
 * runs all they import.
 */
const WEB_SHARED_RULES = [
  'src/domain/networks/capabilities.ts',
  'src/domain/networks/text-length.ts',
  'src/domain/networks/post-fit.ts',
  'src/domain/zoned-time.ts',
  'src/domain/errors.ts',
];

const SURFACE = ['domain', 'http', 'generated', 'config'];

const LAYERS: Record<string, Layer> = {
  roots: { holds: ['src/app.ts', 'src/server.ts', 'src/open-domain.ts', 'src/cli/', 'src/demo.ts'], may: ['*'] },
  config: { holds: ['src/config.ts'], may: [] },
  logger: { holds: ['src/logger.ts'], may: [] },
  files: { holds: ['src/files/'], may: [] },
  domain: { holds: ['src/domain/'], may: ['db', 'config', 'generated'] },
  'shared rules': { holds: WEB_SHARED_RULES, may: [], packages: /^$/ },
  'domain ports': { holds: DOMAIN_PORTS, may: [] },
  db: { holds: ['src/db/'], may: ['files'] },
  http: { holds: ['src/http/'], may: ['domain', 'generated', 'logger'] },
  rest: { holds: ['src/rest/'], may: SURFACE },
  mcp: { holds: ['src/mcp/'], may: SURFACE },
  oauth: { holds: ['src/oauth/'], may: SURFACE },
  web: { holds: ['src/web/'], may: SURFACE },
  net: { holds: ['src/net/'], may: ['domain ports', 'config'] },
  storage: { holds: ['src/storage/'], may: ['domain ports', 'config', 'files'] },
  publishing: { holds: ['src/publishing/'], may: ['domain', 'db', 'net', 'logger', 'config'] },
  connectors: { holds: ['src/publishing/networks/'], may: ['domain ports', 'net'] },
  generated: { holds: ['generated/'], may: [] },
  sdk: { holds: ['sdk/src/'], may: ['generated'], packages: /^openapi-fetch$/ },
  'web app': { holds: ['web/src/'], may: ['sdk', 'shared rules'], packages: /^(preact|uplot)$/ },
};

/** Packages that belong to some layers only (for layers without a `packages` list of their own). */
const PACKAGES: { pattern: RegExp; only: string[] }[] = [
  { pattern: /^(knex|pg|better-sqlite3)$/, only: ['db'] },
  {
    pattern: /^(express|express-openapi-validator|json-rpc-2\.0)$/,
    only: ['http', 'rest', 'mcp', 'oauth', 'web', 'roots'],
  },
  { pattern: /^@node-oauth\//, only: ['oauth'] },
  { pattern: /^@aws-sdk\//, only: ['storage'] },
];

const holds = (layer: Layer, file: string): boolean =>
  layer.holds.some((held) => (held.endsWith('/') ? file.startsWith(held) : file === held));

/** The layer a file obeys: one naming it outright, else the one with the longest folder holding it. */
function layerOf(layers: Record<string, Layer>, file: string): string | undefined {
  const specificity = (name: string) =>
    Math.max(
      ...layers[name].holds
        .filter((held) => holds({ holds: [held], may: [] }, file))
        .map((held) => (held.endsWith('/') ? held.length : Infinity)),
    );
  return Object.keys(layers)
    .filter((name) => holds(layers[name], file))
    .sort((a, b) => specificity(b) - specificity(a))[0];
}

/** Each import of the files that its layer does not allow, as '<file>:<line> imports <module> (<why>)'. */
function violations(graph: ModuleGraph, files: string[], layers: Record<string, Layer>): string[] {
  const offenders: string[] = [];
  const report = (edge: Edge, why: string) =>
    offenders.push(`${edge.from}:${edge.line} imports ${edge.specifier} (${why})`);
  for (const file of files) {
    const from = layerOf(layers, file);
    if (!from) {
      offenders.push(`${file} is in no layer: add its folder to LAYERS with what it may import`);
      continue;
    }
    const { may, packages } = layers[from];
    for (const edge of graph.edgesOf(file)) {
      const { target } = edge;
      if (target.kind === 'unresolved') {
        report(edge, `cannot be checked: ${target.reason}`);
      } else if (target.kind === 'file') {
        if (may.includes('*') || holds(layers[from], target.path)) continue;
        if (!may.some((name) => holds(layers[name], target.path))) {
          report(edge, `${from} -> ${layerOf(layers, target.path) ?? target.path}`);
        }
      } else if (packages) {
        if (target.kind === 'builtin' || !packages.test(target.name)) {
          report(edge, `${from} may import no such package`);
        }
      } else if (target.kind === 'package') {
        const rule = PACKAGES.find((p) => p.pattern.test(target.name));
        if (rule && !rule.only.includes(from)) report(edge, `the package belongs to ${rule.only.join(', ')}`);
      }
    }
  }
  return offenders;
}

// The module graph of the source: no database involved.
describeOnce('layering (ARCHITECTURE.md): an allow-list per layer over the module graph', () => {
  const server = moduleGraph('tsconfig.json');
  const app = moduleGraph('web/tsconfig.json');

  it('knows the layer of every file of src/', () => {
    const lost = server.files.filter((file) => file.startsWith('src/') && !layerOf(LAYERS, file));
    assert.deepEqual(lost, [], 'add the new folder to LAYERS with what it may import');
  });

  it('lets each layer of src/ import only what it is allowed', () => {
    assert.deepEqual(
      violations(
        server,
        server.files.filter((file) => file.startsWith('src/')),
        LAYERS,
      ),
      [],
    );
  });

  it('lets the web app import its own modules, the SDK, Preact and the shared rules, with all they import', () => {
    const ownFiles = app.files.filter((file) => file.startsWith('web/src/'));
    assert.ok(
      ownFiles.some((file) => file.endsWith('.tsx')),
      'the web app is read with its .tsx files',
    );
    // What the bundler takes into the browser, resolved as it resolves it: each module within its own layer's rules.
    const bundled = app.reachableFrom(ownFiles);
    assert.ok(
      WEB_SHARED_RULES.every((rule) => bundled.includes(rule)),
      'the shared rules are read with the web app',
    );
    assert.deepEqual(violations(app, bundled, LAYERS), []);
    const node = bundled.flatMap((file) => app.edgesOf(file).filter((edge) => edge.target.kind === 'builtin'));
    const where = node.map((edge) => `${edge.from}:${edge.line} imports ${edge.specifier}`);
    assert.deepEqual(where, [], 'the browser has no Node');
  });

  it('makes connectors their own layer, apart from the publishing engine', () => {
    assert.equal(layerOf(LAYERS, 'src/publishing/networks/sandbox.ts'), 'connectors');
    assert.equal(layerOf(LAYERS, 'src/publishing/worker.ts'), 'publishing');
    assert.equal(layerOf(LAYERS, 'src/domain/networks/capabilities.ts'), 'shared rules');
  });
});

// Fixtures of the layering check: no database involved.
describeOnce('the layering check sees every form of import (fixtures in test/architecture/fixtures)', () => {
  const root = 'test/architecture/fixtures';
  const layers: Record<string, Layer> = {
    surface: { holds: [`${root}/surface/`], may: ['rule'] },
    rule: { holds: [`${root}/rule/`], may: [], packages: /^$/ },
    store: { holds: [`${root}/store/`], may: [] },
  };
  const graph = moduleGraph('tsconfig.json');
  const found = (file: string) => violations(graph, [`${root}/${file}`], layers);

  it('passes an import the layer allows', () => {
    assert.deepEqual(found('surface/allowed.ts'), []);
  });

  const forms: [file: string, line: number, module: string][] = [
    ['surface/by-require.ts', 5, '../store/store.js'],
    ['surface/by-create-require.ts', 6, '../store/store.js'],
    ['surface/by-template-import.ts', 4, '../store/store.js'],
    ['surface/after-statement.ts', 4, '../store/store.js'],
    ['surface/type-only.ts', 2, '../store/store.js'],
    ['surface/re-export.ts', 2, '../store/store.js'],
  ];
  for (const [file, line, module] of forms) {
    it(`sees ${file}`, () => {
      assert.deepEqual(found(file), [`${root}/${file}:${line} imports ${module} (surface -> store)`]);
    });
  }

  it('fails an import() whose module is computed, since it cannot be checked', () => {
    assert.deepEqual(found('surface/computed-import.ts'), [
      `${root}/surface/computed-import.ts:5 imports \`../store/\${name}.js\` (cannot be checked: computed module name)`,
    ]);
  });

  it('fails a shared rule that reaches for Node', () => {
    assert.deepEqual(found('rule/reads-files.ts'), [
      `${root}/rule/reads-files.ts:2 imports node:fs (rule may import no such package)`,
    ]);
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

function imports(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(/^\s*import[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]);
}

/** True when a relative import lands in one of the surfaces (src/rest, src/mcp, src/oauth). */
function isSurface(file: string, specifier: string): boolean {
  if (!specifier.startsWith('.')) return false;
  const target = path.relative('src', path.resolve(path.dirname(file), specifier));
  return /^(rest|mcp|oauth)\//.test(target);
}

describe('layering (DESIGN.md: surfaces -> domain -> db)', () => {
  const files = sourceFiles('src');

  it('keeps knex inside src/db', () => {
    const offenders = files.filter((f) => !f.startsWith(path.join('src', 'db')) && imports(f).some((i) => i === 'knex' || i === 'pg' || i === 'better-sqlite3'));
    assert.deepEqual(offenders, []);
  });

  it('keeps express and json-rpc out of the domain', () => {
    const offenders = files.filter(
      (f) => f.startsWith(path.join('src', 'domain')) && imports(f).some((i) => /^(express|json-rpc-2\.0|express-openapi-validator)/.test(i) || isSurface(f, i)),
    );
    assert.deepEqual(offenders, []);
  });

  it('keeps the publishing engine out of the domain: connectors implement the domain\'s port, not the reverse', () => {
    const offenders = files.filter(
      (f) => f.startsWith(path.join('src', 'domain')) && imports(f).some((i) => i.startsWith('.') && path.relative('src', path.resolve(path.dirname(f), i)).startsWith(`publishing${path.sep}`)),
    );
    assert.deepEqual(offenders, []);
  });

  it('keeps the database layer from importing the surfaces', () => {
    const offenders = files.filter((f) => f.startsWith(path.join('src', 'db')) && imports(f).some((i) => isSurface(f, i)));
    assert.deepEqual(offenders, []);
  });
});

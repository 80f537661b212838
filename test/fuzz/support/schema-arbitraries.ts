/**
 * Inputs for the fuzz suite, drawn from the spec files themselves (the bundled OpenAPI document and the
 * MCP tools' inputSchemas), so a new route, tool or field is fuzzed without editing the tests.
 *
 * A value is mostly shaped as its schema says (so it reaches the handlers and the domain, not only the
 * validator), with boundary and wrong-typed values mixed in at every leaf, and now and then replaced
 * whole by arbitrary JSON. Ids are drawn from a pool of real ones, so lookups find something.
 * URLs are never ones that would leave the machine: only blocked, local or malformed ones.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
};

export interface ArbitraryContext {
  /** The document `#/...` references resolve against. */
  root: unknown;
  /**
   * Real ids to put where a name ends in Id or Ids, by kind (`channel`, `post`, `label`, `workspace`,
   * `media`...): a name starting with a kind draws mostly from that kind, else from all of them.
   */
  ids: Readonly<Record<string, readonly string[]>>;
}

const MAX_DEPTH = 6;

/** Strings at the edges of what parsers, validators and the domain handle. */
export const BOUNDARY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  '\ud800',
  '\udfff\ud800',
  '\u202e',
  '\ufeff',
  '🦜🏳️‍🌈',
  'é',
  'e\u0301',
  'x'.repeat(65),
  'x'.repeat(256),
  'y'.repeat(10_001),
  'z'.repeat(70_000),
  '🧑‍🚀'.repeat(400),
  '%',
  '%C0%AE',
  '%00',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; DROP TABLE posts; --",
  '${jndi:x}',
  '__proto__',
  'constructor',
  'live_',
  'live_01hx0000000000000000000100',
  'null',
  'NaN',
  '-1',
  '1e309',
  'true',
  '#',
  '#zzzzzz',
  '25:61',
  'image/',
  'image/png',
  'video/mp4',
  'ZZ',
  '@',
  'Europe/Nowhere',
];

export const BOUNDARY_DATES: readonly string[] = [
  '2024-02-30T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z',
  '2026-01-01',
  '2099-06-01T09:00:00+14:00',
  '2030-01-31T09:00:00Z',
  '2030-01-31T24:00:00Z',
  '2030-13-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  'yesterday',
  '2030-01-31T09:00:00',
  '2030-01-31 09:00:00Z',
  '2100-12-31',
  '1899-12-31',
];

/** URLs that never reach the network: blocked addresses (refused before connecting), bad schemes, junk. */
export const SAFE_URLS: readonly string[] = [
  'http://127.0.0.1:9/a.png',
  'https://10.0.0.1/b.jpg',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/c.mp4',
  'http://[::ffff:127.0.0.1]/d.png',
  'http://0.0.0.0/',
  'http://user:pw@127.0.0.1/e.png',
  'ftp://127.0.0.1/f.png',
  'javascript:alert(1)',
  'data:image/png;base64,AAAA',
  'file:///etc/passwd',
  'http://',
  'https://[oops/',
  'http://%E0%A4%A/',
  'http://localhost/g.gif',
  'https://192.168.1.1/h.webp',
];

export const BOUNDARY_NUMBERS: readonly number[] = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  59,
  60,
  1439,
  1440,
  2 ** 31,
  2 ** 53 + 1,
  -(2 ** 53),
  1e308,
  -1e308,
  Number.MIN_VALUE,
];

const boundaryLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...BOUNDARY_STRINGS),
  fc.constantFrom(...BOUNDARY_DATES),
  fc.constantFrom(...BOUNDARY_NUMBERS),
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    [],
    {},
    [null],
    { '': '' },
    Array.from({ length: 120 }, (_, i) => `item-${i}`),
  ),
);

/** `arbitrary`'s value once in `every` draws, else undefined. */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: every - 1 }, { arbitrary, weight: 1 });
}

/** Arbitrary JSON, small. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4 });

function resolve(schema: Schema, context: ArbitraryContext): Schema {
  let current = schema;
  for (let hops = 0; current.$ref !== undefined && hops < 10; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) break;
    let target: unknown = context.root;
    for (const part of ref.slice(2).split('/'))
      target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    const { $ref: _drop, ...siblings } = current;
    current = { ...(target as Schema), ...siblings };
  }
  return current;
}

function idArbitrary(context: ArbitraryContext, name = ''): fc.Arbitrary<string> {
  const all = Object.values(context.ids).flat();
  const kind = Object.keys(context.ids).find((k) => name.toLowerCase().startsWith(k));
  const own = kind ? context.ids[kind] : [];
  return fc.oneof(
    { arbitrary: own.length > 0 ? fc.constantFrom(...own) : fc.constantFrom(...all), weight: 6 },
    { arbitrary: fc.constantFrom(...all), weight: 1 },
    { arbitrary: fc.string({ minLength: 1, maxLength: 26 }), weight: 1 },
  );
}

function stringArbitrary(schema: Schema, name: string, context: ArbitraryContext): fc.Arbitrary<unknown> {
  if (/Ids?$/.test(name) || name === 'id' || name === 'cursor') {
    return name === 'cursor'
      ? fc.oneof(fc.string({ maxLength: 40 }), fc.base64String({ maxLength: 60 }))
      : idArbitrary(context, name);
  }
  if (schema.format === 'date-time' || schema.format === 'date') {
    const real = fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => (schema.format === 'date' ? d.toISOString().slice(0, 10) : d.toISOString()));
    return fc.oneof({ arbitrary: real, weight: 4 }, { arbitrary: fc.constantFrom(...BOUNDARY_DATES), weight: 1 });
  }
  if (schema.format === 'uri' || /url$/i.test(name)) {
    return fc.oneof(
      { arbitrary: fc.constantFrom(...SAFE_URLS.slice(0, 4)), weight: 4 },
      { arbitrary: fc.constantFrom(...SAFE_URLS), weight: 1 },
    );
  }
  if (schema.pattern !== undefined)
    return fc.stringMatching(new RegExp(schema.pattern)).map((s) => s.slice(0, schema.maxLength ?? 200));
  if (name === 'timezone')
    return fc.constantFrom(
      'Europe/Berlin',
      'UTC',
      'America/New_York',
      'Pacific/Kiritimati',
      'Etc/GMT+12',
      'Nowhere/City',
      '',
    );
  const maxLength = Math.min(schema.maxLength ?? 80, 80);
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  return plainStrings(minLength, maxLength);
}

const plainStringsByLength = new Map<string, fc.Arbitrary<string>>();

/**
 * Text of these lengths in three units. One per length range, shared by every field that asks: fast-check's
 * grapheme strings cost ~5 ms each to make, and an arbitrary keeps no state, so a shared one draws the same values.
 */
function plainStrings(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const key = `${minLength}-${maxLength}`;
  let strings = plainStringsByLength.get(key);
  if (!strings) {
    strings = fc.oneof(
      fc.string({ minLength, maxLength }),
      fc.string({ minLength, maxLength, unit: 'grapheme' }),
      fc.string({ minLength, maxLength, unit: 'binary' }),
    );
    plainStringsByLength.set(key, strings);
  }
  return strings;
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1_000_000;
  const max = schema.maximum ?? 1_000_000;
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
}

function objectArbitrary(schema: Schema, context: ArbitraryContext, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    record[name] = valueFor(property, context, depth + 1, name);
  const shaped = fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
  const extra = fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 2 });
  return fc.oneof(
    { arbitrary: shaped, weight: 18 },
    // A required field dropped, or an unknown one added.
    { arbitrary: fc.record(record, { requiredKeys: [] }), weight: 1 },
    { arbitrary: fc.tuple(shaped, extra).map(([value, more]) => ({ ...more, ...(value as object) })), weight: 1 },
  );
}

/** A value for `schema`: usually shaped as it says, with boundary values at the leaves. */
export function valueFor(input: Schema, context: ArbitraryContext, depth = 0, name = ''): fc.Arbitrary<unknown> {
  const schema = resolve(input, context);
  const shaped = shapedValue(schema, context, depth, name);
  if (depth >= MAX_DEPTH) return shaped;
  return fc.oneof(
    { arbitrary: shaped, weight: 30 },
    { arbitrary: boundaryLeaf, weight: 1 },
    { arbitrary: anyJson, weight: 1 },
  );
}

function shapedValue(schema: Schema, context: ArbitraryContext, depth: number, name: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const choices = schema.oneOf ?? schema.anyOf;
  if (choices)
    return fc.oneof(
      ...choices.map((choice) =>
        valueFor({ ...schema, oneOf: undefined, anyOf: undefined, ...choice }, context, depth, name),
      ),
    );
  if (schema.allOf)
    return valueFor(Object.assign({}, ...schema.allOf.map((s) => resolve(s, context))), context, depth, name);
  if (depth >= MAX_DEPTH) return fc.constant(null);
  const types = Array.isArray(schema.type)
    ? schema.type
    : schema.type !== undefined
      ? [schema.type]
      : schema.properties
        ? ['object']
        : [];
  if (types.length === 0) return anyJson;
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'object':
          return objectArbitrary(schema, context, depth);
        case 'array': {
          const maxLength = Math.min(schema.maxItems ?? 5, 5);
          const minLength = Math.min(schema.minItems ?? 0, maxLength);
          const items = valueFor(schema.items ?? {}, context, depth + 1, name);
          return schema.uniqueItems === true
            ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
            : fc.array(items, { minLength, maxLength });
        }
        case 'string':
          return stringArbitrary(schema, name, context);
        case 'integer':
          return numberArbitrary(schema, true);
        case 'number':
          return numberArbitrary(schema, false);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        default:
          return anyJson;
      }
    }),
  );
}

/** Text for a path segment: a real id, a boundary string (encoded), or raw percent-encoding that may be broken. */
export function pathSegment(context: ArbitraryContext, name: string): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: idArbitrary(context, name).map(encodeURIComponent), weight: 12 },
    {
      arbitrary: fc
        .constantFrom(...BOUNDARY_STRINGS)
        .filter((s) => s !== '')
        .map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))),
      weight: 2,
    },
    {
      arbitrary: fc
        .string({ minLength: 1, maxLength: 30 })
        .map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(
        '%C0%AE',
        '%E0%A4%A',
        '%FF',
        '%',
        '%zz',
        '%2F..%2F',
        '..',
        '.',
        '%00',
        'a%C3',
        '%ED%A0%80',
      ),
      weight: 2,
    },
  );
}

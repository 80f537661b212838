/**
 * express-openapi-validator 5.6 compiles a path-to-regexp matcher for every route it scans, on every request
 * (lookupRoute in its middlewares/openapi.metadata.js), and throws it away: 14 % of the REST read's CPU profile
 * (BENCHMARKS.md). A matcher depends only on the route and two routing options, so the validator's own copy of
 * pathToRegexp is memoized here; the validator reads that export at each call, so it picks the cache up. Upstream
 * proposes the same cache (cdimascio/express-openapi-validator#1217); once a release has it, this file goes.
 * Sharing a matcher is safe: its RegExp has no global or sticky flag, so exec keeps no state between calls.
 */
import { createRequire } from 'node:module';

type PathToRegexp = (path: string, options?: { sensitive?: boolean; strict?: boolean }) => { regexp: RegExp; keys: unknown[] };
interface PathToRegexpModule {
  pathToRegexp: PathToRegexp & { memoized?: true };
}

export function memoizeValidatorRouteMatchers(): void {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const module = fromValidator('path-to-regexp') as PathToRegexpModule;
  if (module.pathToRegexp.memoized) return;
  const compile = module.pathToRegexp;
  // Bounded by the routes of the API document (times two options), which the validator alone passes here.
  const matchers = new Map<string, ReturnType<PathToRegexp>>();
  const memoized: PathToRegexpModule['pathToRegexp'] = (path, options = {}) => {
    // Only the validator's call shape is cached; any other caller of this module is passed straight through.
    if (typeof path !== 'string' || Object.keys(options).some((name) => name !== 'sensitive' && name !== 'strict')) return compile(path, options);
    const key = `${options.sensitive ? 1 : 0}${options.strict ? 1 : 0}${path}`;
    let matcher = matchers.get(key);
    if (!matcher) matchers.set(key, (matcher = compile(path, options)));
    return matcher;
  };
  memoized.memoized = true;
  module.pathToRegexp = memoized;
}

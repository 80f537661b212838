/**
 * express-openapi-validator 5.6 compiles a path-to-regexp matcher for every route it scans, on every request
 * (lookupRoute in its middlewares/openapi.metadata.js), and throws it away: 14 % of the REST read's CPU profile
 * (BENCHMARKS.md). A matcher depends only on the route and two routing options, so the validator's own copy of
 * pathToRegexp is memoized here; the validator reads that export at each call, so it picks the cache up. Upstream
 * proposes the same cache (cdimascio/express-openapi-validator#1217); once a release has it, this file goes.
 * Sharing a matcher is safe: its RegExp has no global or sticky flag, so exec keeps no state between calls.
 */
import { createRequire } from 'node:module';

type PathToRegexp = (
  path: string,
  options?: { sensitive?: boolean; strict?: boolean },
) => { regexp: RegExp; keys: unknown[] };
interface PathToRegexpModule {
  pathToRegexp: PathToRegexp & { memoized?: true };
}

export function memoizeValidatorRouteMatchers(): void {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const module = fromValidator('path-to-regexp') as PathToRegexpModule;
  if (module.pathToRegexp.memoized) return;
  const compile = module.pathToRegexp;
  // Bounded by the routes of the API document, one map per combination of the two options, which the validator
  // alone passes here. It asks once per route per request, so the check allocates nothing (no key, no key list).
  const byOptions = [0, 1, 2, 3].map(() => new Map<string, ReturnType<PathToRegexp>>());
  const memoized: PathToRegexpModule['pathToRegexp'] = (path, options = {}) => {
    // Only the validator's call shape is cached; any other caller of this module is passed straight through.
    if (typeof path !== 'string') return compile(path, options);
    for (const name in options) if (name !== 'sensitive' && name !== 'strict') return compile(path, options);
    const matchers = byOptions[(options.sensitive ? 2 : 0) + (options.strict ? 1 : 0)];
    let matcher = matchers.get(path);
    if (!matcher) matchers.set(path, (matcher = compile(path, options)));
    return matcher;
  };
  memoized.memoized = true;
  module.pathToRegexp = memoized;
}

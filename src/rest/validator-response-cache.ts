/**
 * express-openapi-validator 5.6 caches the response validators it compiles under the method, the route and the
 * request's content type, though they are compiled from the route's responses alone: every other content type a
 * request carries compiled the route's response schemas again, each compile walking the whole API document (a fuzz
 * run of many content types spent a third of its CPU there). Keyed here by method and route, they are compiled once
 * per route. Only with VALIDATE_RESPONSES on; once a release keys them so, this file goes.
 */
import { createRequire } from 'node:module';

interface ResponseValidatorPrototype {
  validatorsCache: Record<string, unknown>;
  buildValidators(responses: unknown, ajvCacheKey: string): unknown;
  _getOrBuildValidator: ((req: RouteRequest, responses: unknown) => unknown) & { perRoute?: true };
}
interface RouteRequest {
  method: string;
  openapi: { expressRoute: string };
}

export function compileResponseValidatorsPerRoute(): void {
  const require = createRequire(import.meta.url);
  const { ResponseValidator } = require('express-openapi-validator/dist/middlewares/openapi.response.validator.js') as {
    ResponseValidator: { prototype: ResponseValidatorPrototype };
  };
  const prototype = ResponseValidator.prototype;
  if (prototype._getOrBuildValidator.perRoute) return;
  const perRoute: ResponseValidatorPrototype['_getOrBuildValidator'] = function (
    this: ResponseValidatorPrototype,
    req,
    responses,
  ) {
    const key = `${req.method}-${req.openapi.expressRoute}`;
    this.validatorsCache[key] ??= this.buildValidators(responses, key);
    return this.validatorsCache[key];
  };
  perRoute.perRoute = true;
  prototype._getOrBuildValidator = perRoute;
}

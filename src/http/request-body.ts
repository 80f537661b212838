/**
 * What every request must be before a router sees it, the same for REST, MCP, OAuth and the pages:
 * - JSON bodies are parsed by express.json within the configured size, and refused with a 400 when nested
 *   deeper than MAX_JSON_DEPTH (checked without recursion, before validators, canonical JSON for
 *   idempotency or tool arguments walk the value and could overflow the stack);
 * - form bodies (the OAuth endpoints and pages) are parsed by express.urlencoded within the same size;
 * - no text anywhere (URL, JSON string, form field) may hold U+0000: Postgres cannot store it, and no
 *   person means it; it is a 400 that says so rather than a database error.
 */
import express, { type RequestHandler } from 'express';
import { ValidationError } from '../domain/errors.js';

const MAX_JSON_DEPTH = 64;

class TooDeeplyNestedError extends ValidationError {
  constructor() {
    super(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels; flatten it.`);
  }
}

class NulCharacterError extends ValidationError {
  constructor(where: string) {
    super(`The ${where} contains the NUL character (U+0000, %00); remove it.`);
  }
}

export function jsonBody(options: { limit: number; type?: string[] | (() => boolean) }): RequestHandler[] {
  const parse = express.json({ limit: options.limit, type: options.type ?? ['application/json', 'application/*+json'] });
  return [parse, checkBody];
}

export function formBody(options: { limit: number }): RequestHandler[] {
  return [express.urlencoded({ extended: false, limit: options.limit }), checkBody];
}

/** Mounted before every router: a URL carrying %00 anywhere is refused. */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  next(/%00/i.test(req.originalUrl) ? new NulCharacterError('URL') : undefined);
};

const checkBody: RequestHandler = (req, _res, next) => {
  const problem = bodyProblem(req.body, MAX_JSON_DEPTH);
  next(problem === 'depth' ? new TooDeeplyNestedError() : problem === 'nul' ? new NulCharacterError('body') : undefined);
};

/** Walks a parsed body with an explicit stack: too deep, a string (or key) with U+0000, or fine. */
function bodyProblem(value: unknown, maxDepth: number): 'depth' | 'nul' | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return 'nul';
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth > maxDepth) return 'depth';
    for (const [key, child] of Object.entries(current)) {
      if (key.includes('\u0000')) return 'nul';
      stack.push([child, depth + 1]);
    }
  }
  return undefined;
}

/**
 * JSON request bodies, the same for REST, MCP and OAuth registration:
 * - parsed by express.json within the configured size;
 * - refused with a 400 when nested deeper than MAX_JSON_DEPTH, checked without recursion, before any
 *   code walks the value (validators, canonical JSON for idempotency, tool arguments) and could overflow.
 */
import express, { type RequestHandler } from 'express';
import { ValidationError } from '../domain/errors.js';

export const MAX_JSON_DEPTH = 64;

export class TooDeeplyNestedError extends ValidationError {
  constructor() {
    super(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels; flatten it.`);
  }
}

export function jsonBody(options: { limit: number; type?: string[] | (() => boolean) }): RequestHandler[] {
  const parse = express.json({ limit: options.limit, type: options.type ?? ['application/json', 'application/*+json'] });
  const checkDepth: RequestHandler = (req, _res, next) => next(nestsDeeperThan(req.body, MAX_JSON_DEPTH) ? new TooDeeplyNestedError() : undefined);
  return [parse, checkDepth];
}

/** Walks a parsed JSON value with an explicit stack and reports whether it nests deeper than `max`. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

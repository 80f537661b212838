import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { HEADER, type Output } from './output.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  operationId: string;
  requestBody?: unknown;
  responses?: unknown;
  summary?: string;
  'x-herald-rate-limit'?: 'read' | 'write' | 'none';
  'x-herald-idempotent'?: boolean;
}

function hasExample(op: any): boolean {
  const media = [
    ...Object.values<any>(op.requestBody?.content ?? {}),
    ...Object.entries<any>(op.responses ?? {})
      .filter(([status]) => status.startsWith('2'))
      .flatMap(([, response]) => Object.values<any>(response.content ?? {})),
  ];
  return media.some((m) => m.example !== undefined || m.examples !== undefined);
}

/** Bundles and validates openapi/, then emits the bundle, its types, the handler interface and the route table. */
export async function generateRest(root: string): Promise<Output[]> {
  const entry = path.join(root, 'openapi', 'openapi.yaml');
  const bundled = (await SwaggerParser.bundle(entry)) as any;
  // validate() dereferences in place, so validate a copy and keep the bundle with its $refs.
  await SwaggerParser.validate(structuredClone(bundled));

  const types = astToString(
    await openapiTS(structuredClone(bundled), { alphabetize: false, defaultNonNullable: false }),
  );

  const routes: string[] = [];
  const methods: string[] = [];
  const dispatch: string[] = [];
  const ids = new Set<string>();
  for (const [route, item] of Object.entries<any>(bundled.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${route} has no operationId`);
      if (ids.has(op.operationId)) throw new Error(`operationId ${op.operationId} is used twice`);
      ids.add(op.operationId);
      if (!hasExample(op)) throw new Error(`${op.operationId} needs an example on its request body or a 2xx response`);
      const rateLimit = op['x-herald-rate-limit'];
      if (!rateLimit) throw new Error(`${op.operationId} needs x-herald-rate-limit (read, write or none)`);
      routes.push(
        `  { operationId: '${op.operationId}', method: '${method}', path: '${route}', ` +
          `expressPath: '${route.replace(/\{(\w+)\}/g, ':$1')}', rateLimit: '${rateLimit}', ` +
          `idempotent: ${op['x-herald-idempotent'] === true} },`,
      );
      dispatch.push(
        `    case '${op.operationId}':\n      return handlers.${op.operationId}(request as ` +
          `RestRequest<'${op.operationId}'>, context);`,
      );
      methods.push(
        `  /** ${method.toUpperCase()} ${route}${op.summary ? ` - ${op.summary}` : ''} */\n` +
          `  ${op.operationId}(request: RestRequest<'${op.operationId}'>, context: Context): ` +
          `Promise<RestResponse<'${op.operationId}'>>;`,
      );
    }
  }
  // Static segments before parameters, so /posts/scheduled is not taken for /posts/{postId}.
  routes.sort((a, b) => Number(a.includes(':')) - Number(b.includes(':')));

  const handlers =
    `${HEADER}import type { operations } from './openapi-types.js';

export type OperationId = keyof operations;
type Op<K extends OperationId> = operations[K];
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : ` +
    `T extends { content: { 'text/csv': infer C } } ? C : undefined;
/** A text answer may also be given as it is made, in chunks, so a long one starts at once and is never held whole. */
type ReplyOf<T> = T extends { content: { 'text/csv': infer C } } ? C | AsyncIterable<C> : JsonOf<T>;
type Part<T, K extends string> = T extends { [P in K]?: infer V } ? ` +
    `([V] extends [never] ? Record<string, never> : NonNullable<V>) : Record<string, never>;

/** What a handler receives: path, query and body as the spec types them, after validation. */
export interface RestRequest<K extends OperationId> {
  params: Part<Op<K>['parameters'], 'path'>;
  query: Part<Op<K>['parameters'], 'query'>;
  body: JsonOf<NonNullable<Op<K>['requestBody']>>;
}

type Responses<K extends OperationId> = Op<K>['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204>;

/** What a handler returns: one of the operation's success responses. Errors are thrown. */
export type RestResponse<K extends OperationId> = {
  [S in SuccessStatus<K>]: { status: S; body: ReplyOf<Responses<K>[S]> };
}[SuccessStatus<K>];

export type RateLimitClass = 'read' | 'write' | 'none';

export interface RestRoute {
  operationId: OperationId;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  expressPath: string;
  rateLimit: RateLimitClass;
  idempotent: boolean;
}

/** One method per operationId of openapi/. */
export interface RestHandlers<Context> {
${methods.join('\n')}
}

export const restRoutes: readonly RestRoute[] = [
${routes.join('\n')}
];

/** What Express hands over: path, query and body as they arrived (validated against openapi/ by then). */
export interface ValidatedRequest {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** Calls the handler of one operation, typed end to end: the request is the one the spec validated. */
export function dispatchRest<Context>(handlers: RestHandlers<Context>, operationId: OperationId, ` +
    `request: ValidatedRequest, context: Context): Promise<{ status: number; body: unknown }> {
  switch (operationId) {
${dispatch.join('\n')}
  }
}
`;

  return [
    { file: 'openapi.json', content: JSON.stringify(bundled, null, 2) + '\n' },
    { file: 'rest/openapi-types.ts', content: HEADER + types },
    { file: 'rest/handlers.ts', content: handlers },
  ];
}

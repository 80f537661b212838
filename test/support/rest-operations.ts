/**
 * Every REST operation of the bundled OpenAPI document (generated/openapi.json), so tests that sweep
 * the API cover a new route without being edited.
 */
import openapiDocument from '../../generated/openapi.json' with { type: 'json' };

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface RestOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The full path with `{name}` placeholders, under /v1/rest. */
  path: string;
  parameters: OpenApiParameter[];
  /** The JSON schema of the request body, when the spec describes one. */
  bodySchema?: Record<string, unknown>;
  /** POST, PUT or PATCH: a body may be sent, whether or not the spec describes one. */
  hasBody: boolean;
}

export const openapi = openapiDocument as unknown as Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
};

function deref<T>(value: T): T {
  const ref = (value as { $ref?: string }).$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return value;
  let target: unknown = openapi;
  for (const part of ref.slice(2).split('/')) target = (target as Record<string, unknown>)[part];
  return target as T;
}

export function restOperations(): RestOperation[] {
  const operations: RestOperation[] = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    const shared = ((item.parameters ?? []) as OpenApiParameter[]).map(deref);
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method] as
        | { operationId: string; parameters?: OpenApiParameter[]; requestBody?: unknown }
        | undefined;
      if (!operation) continue;
      const own = (operation.parameters ?? []).map(deref);
      const body = operation.requestBody
        ? deref(operation.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> })
        : undefined;
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase() as RestOperation['method'],
        path: `/v1/rest${path}`,
        parameters: [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own],
        bodySchema: body?.content?.['application/json']?.schema,
        hasBody: method === 'post' || method === 'put' || method === 'patch',
      });
    }
  }
  return operations;
}

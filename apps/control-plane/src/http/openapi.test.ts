import { describe, expect, it } from 'vitest';
import { routes } from '../routes.js';
import { buildOpenApi } from './openapi.js';

describe('OpenAPI document', () => {
  const document = buildOpenApi(routes, { version: 'test' }) as {
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  };

  it('describes every admin route with its method, and nothing else', () => {
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const defined = routes.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(new Set(defined).size).toBe(defined.length);
    expect(documented.sort()).toEqual(defined.sort());
    expect(defined.length).toBeGreaterThan(60);
  });

  it('gives every operation a unique id and an error response', () => {
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const ids = operations.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) expect(operation.responses.default).toBeDefined();
  });
});

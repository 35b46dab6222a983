// The OpenAPI document: valid for a maintained validator, and exactly the routes the /v1 router serves
// (enumerated from the mounted express router, compared both ways).

import { createLogger } from '@aigw/runtime';
import SwaggerParser from '@apidevtools/swagger-parser';
import express, { type Router } from 'express';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ControlDatabase } from '../db/schema.js';
import { routes } from '../routes.js';
import { adminApi } from './admin-api.js';
import { API_VERSION, buildOpenApi } from './openapi.js';

type Operation = {
  operationId: string;
  responses: Record<string, unknown>;
  parameters?: { name: string; in: string }[];
};
type Document = { info: { version: string }; paths: Record<string, Record<string, Operation>> };

/** `METHOD /path` of every route of the router mounted at /v1, in OpenAPI path syntax. */
function servedRoutes(): string[] {
  const app = express();
  adminApi({
    // Never queried: the router is only enumerated, no request is made.
    db: {} as Kysely<ControlDatabase>,
    authenticate: async () => {
      throw new Error('not called');
    },
    routes,
    apiAccessEnabled: true,
    auditEnabled: false,
    log: createLogger({ app: 'openapi-test', level: 'silent' }),
    version: API_VERSION,
  })(app);
  const top = (app as unknown as { router: Router }).router.stack;
  const mounted = top.filter((layer) => (layer.handle as { stack?: unknown }).stack !== undefined);
  expect(mounted).toHaveLength(1);
  const v1 = (mounted[0] as { handle: unknown }).handle as Router;
  return v1.stack.flatMap((layer) => {
    const route = layer.route as { path: string; methods: Record<string, boolean> } | undefined;
    if (!route) return [];
    return Object.keys(route.methods)
      .filter((m) => route.methods[m])
      .map((m) => `${m.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
  });
}

describe('OpenAPI document', () => {
  const document = buildOpenApi(routes) as Document;

  it('is a valid OpenAPI 3.1 document of interface version 2.0.0 (spec 9)', async () => {
    expect(document.info.version).toBe('2.0.0');
    // The validator dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('describes every route the /v1 router serves, and nothing it does not serve', () => {
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = servedRoutes();
    expect(new Set(served).size).toBe(served.length);
    expect(served.length).toBeGreaterThan(60);
    expect(served).toContain('GET /openapi.json');
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it('declares every path template variable as a path parameter (the validator does not check it for 3.1)', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      const variables = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const operation of Object.values(methods)) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort(), path).toEqual(variables);
      }
    }
  });

  it('documents If-Match, its 409 and the ETag on the routes of a versioned entity, and only there', () => {
    const put = document.paths['/configs/{configId}']?.put;
    expect(put?.parameters).toContainEqual(expect.objectContaining({ name: 'If-Match', in: 'header' }));
    expect(put?.responses).toHaveProperty('409');
    expect(put?.responses['200']).toHaveProperty('headers.ETag');
    const get = document.paths['/configs/{configId}']?.get;
    expect(get?.responses['200']).toHaveProperty('headers.ETag');
    expect(get?.parameters).not.toContainEqual(expect.objectContaining({ name: 'If-Match' }));
    expect(document.paths['/configs']?.post?.responses['201']).toHaveProperty('headers.ETag');
    const label = document.paths['/labels/{labelId}']?.put;
    expect(label?.parameters).not.toContainEqual(expect.objectContaining({ name: 'If-Match' }));
    expect(label?.responses['200']).not.toHaveProperty('headers');
  });

  it('gives every operation a unique id and an error response', () => {
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const ids = operations.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations.filter((o) => o.operationId !== 'getOpenApi'))
      expect(operation.responses.default).toBeDefined();
  });
});

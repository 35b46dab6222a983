// OpenAPI 3.1 generated from the same zod schemas that validate requests (served at /v1/openapi.json).
import { type ZodType, z } from 'zod';
import { API_ERRORS } from '../api-errors.js';
import type { RouteDefinition } from './route.js';

type JsonSchema = Record<string, unknown>;

/** `info.version` of the interface description (spec 9: 2.0.0), independent of the app's release. */
export const API_VERSION = '2.0.0';

/** Where the document itself is served below /v1 (no credential needed, so tools can fetch it). */
export const OPENAPI_PATH = '/openapi.json';

function schemaOf(schema: ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function parameters(schema: ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = schemaOf(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }));
}

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code', 'param'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        code: { type: ['string', 'null'], enum: [...Object.keys(API_ERRORS), null] },
        param: { type: ['string', 'null'] },
      },
    },
  },
};

/** If-Match and ETag (http/conditional.ts) on the routes of one versioned entity. */
const ifMatchParameter = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'Write only if the entity is still at this version: its ETag as read ("3"), a list of them, or * (any existing entity). Weak tags never match. A mismatch is 409 AB07, a malformed value 400 AB01.',
  schema: { type: 'string' },
};

const etagHeader = {
  ETag: {
    description:
      'The entity\'s row version after the request, as a strong entity tag ("3"); absent when the entity no longer exists',
    schema: { type: 'string' },
  },
};

const conflictResponse = {
  description: 'If-Match does not hold (the entity changed since that version), or another conflict',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

function conditional(route: RouteDefinition): { versioned: boolean; takesIfMatch: boolean } {
  const versioned = route.entity !== undefined && 'table' in route.entity;
  const write = route.method === 'put' || route.method === 'patch' || route.method === 'delete';
  return { versioned, takesIfMatch: versioned && write };
}

export function buildOpenApi(
  routes: readonly RouteDefinition[],
  info: { version: string } = { version: API_VERSION },
): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const status = String(route.status ?? 200);
    const { versioned, takesIfMatch } = conditional(route);
    paths[path] ??= {};
    paths[path][route.method] = {
      tags: [route.tag],
      summary: route.summary,
      operationId: `${route.method}${path.replace(/[{}]/g, '').replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
      'x-caller-level': route.level,
      ...(route.auth === 'none' ? { security: [] } : {}),
      parameters: [
        ...parameters(route.params, 'path'),
        ...parameters(route.query, 'query'),
        ...(takesIfMatch ? [ifMatchParameter] : []),
      ],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: schemaOf(route.body, 'input') } },
            },
          }
        : {}),
      responses: {
        [status]: {
          description: 'success',
          ...(versioned ? { headers: etagHeader } : {}),
          content: { 'application/json': { schema: schemaOf(route.response, 'output') } },
        },
        ...(takesIfMatch ? { '409': conflictResponse } : {}),
        default: {
          description: 'error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
  }
  paths[OPENAPI_PATH] = {
    get: {
      tags: ['Meta'],
      summary: 'This OpenAPI document',
      operationId: 'getOpenApi',
      security: [],
      responses: {
        '200': {
          description: 'the OpenAPI 3.1 description of the admin API',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'AI gateway admin API', version: info.version },
    servers: [{ url: '/v1' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-service-api-key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}

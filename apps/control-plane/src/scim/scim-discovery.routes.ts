// GET /ServiceProviderConfig, /ResourceTypes and /Schemas (RFC 7644 4), behind the same key and
// scope as /Users: identity providers read them with the token they provision with.
import { z } from 'zod';
import type { Scope } from '../auth/scopes.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { listOf, serviceProviderConfig, userResourceType, userSchemaDocument } from './scim-discovery.js';
import { scimNotFound } from './scim-errors.js';
import { USER_SCHEMA } from './scim-user.js';
import { scimBase } from './scim-users.routes.js';

const SCOPE: Scope = 'scim.provision';
const idParams = z.object({ id: z.string() });

const discovery = (
  path: string,
  summary: string,
  handler: RouteDefinition['handler'],
  params?: typeof idParams,
) =>
  defineRoute({
    method: 'get',
    path,
    tag: 'SCIM',
    summary,
    scope: SCOPE,
    level: 'organisation',
    ...(params ? { params } : {}),
    response: z.unknown(),
    handler,
  });

export const scimDiscoveryRoutes: RouteDefinition[] = [
  discovery('/ServiceProviderConfig', 'SCIM service provider configuration', async ({ req }) =>
    serviceProviderConfig(scimBase(req)),
  ),
  discovery('/ResourceTypes', 'SCIM resource types', async ({ req }) =>
    listOf([userResourceType(scimBase(req))]),
  ),
  discovery(
    '/ResourceTypes/:id',
    'A SCIM resource type',
    async ({ req, params }) => {
      if ((params as { id: string }).id !== 'User') throw scimNotFound('resource type not found');
      return userResourceType(scimBase(req));
    },
    idParams,
  ),
  discovery('/Schemas', 'SCIM schemas', async ({ req }) => listOf([userSchemaDocument(scimBase(req))])),
  discovery(
    '/Schemas/:id',
    'A SCIM schema',
    async ({ req, params }) => {
      if ((params as { id: string }).id !== USER_SCHEMA) throw scimNotFound('schema not found');
      return userSchemaDocument(scimBase(req));
    },
    idParams,
  ),
];

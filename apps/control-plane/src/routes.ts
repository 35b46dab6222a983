// Every admin route, by resource family. The OpenAPI document is generated from this list.
import type { RouteDefinition } from './http/route.js';
import { organisationRoutes } from './organisations/organisations.routes.js';

export const routes: readonly RouteDefinition[] = [...organisationRoutes];

// Every policy route: rate limits and usage limits policies (spec 4.1) and per-entity usage resets.
import type { RouteDefinition } from '../http/route.js';
import { policyFamilyRoutes } from './policy-family.routes.js';
import { rateLimitsPolicies } from './rate-limits.policy.js';
import { usageLimitsPolicies } from './usage-limits.policy.js';
import { usageResetRoutes } from './usage-resets.routes.js';

export const policyRoutes: RouteDefinition[] = [
  ...policyFamilyRoutes(rateLimitsPolicies),
  ...policyFamilyRoutes(usageLimitsPolicies),
  ...usageResetRoutes,
];

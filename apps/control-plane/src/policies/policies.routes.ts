// Every policy route: rate limits and usage limits policies (spec 4.1), per-entity usage resets and
// a usage-limits policy's alerts.
import type { RouteDefinition } from '../http/route.js';
import { policyAlertRoutes } from './policy-alerts.routes.js';
import { policyFamilyRoutes } from './policy-family.routes.js';
import { rateLimitsPolicies } from './rate-limits.policy.js';
import { usageLimitsPolicies } from './usage-limits.policy.js';
import { usageResetRoutes } from './usage-resets.routes.js';

export const policyRoutes: RouteDefinition[] = [
  ...policyFamilyRoutes(rateLimitsPolicies),
  ...policyFamilyRoutes(usageLimitsPolicies),
  ...usageResetRoutes,
  ...policyAlertRoutes,
];

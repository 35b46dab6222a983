// Every admin route, by resource family. The OpenAPI document is generated from this list.
import { alertRoutes } from './alerts/alerts.routes.js';
import { apiKeyRoutes } from './api-keys/api-keys.routes.js';
import { configRoutes } from './configs/configs.routes.js';
import { deploymentRoutes } from './deployments/deployments.routes.js';
import { guardrailRoutes } from './guardrails/guardrails.routes.js';
import type { RouteDefinition } from './http/route.js';
import { integrationRoutes } from './integrations/integrations.routes.js';
import { logsApiRoutes } from './logs-api/logs-api.routes.js';
import { mcpIntegrationRoutes } from './mcp-integrations/mcp-integrations.routes.js';
import { mcpServerRoutes } from './mcp-servers/mcp-servers.routes.js';
import { meRoutes } from './me/me.routes.js';
import { modelPricingRoutes } from './model-pricing/model-pricing.routes.js';
import { organisationRoutes } from './organisations/organisations.routes.js';
import { policyRoutes } from './policies/policies.routes.js';
import { promptFamilyRoutes } from './prompts/index.js';
import { integrationProviders } from './providers/integration-providers.js';
import { providerRoutes } from './providers/providers.routes.js';
import { secretReferenceRoutes } from './secret-references/secret-references.routes.js';
import { userInviteRoutes } from './user-invites/user-invites.routes.js';
import { userRoutes } from './users/users.routes.js';
import { virtualKeyRoutes } from './virtual-keys/virtual-keys.routes.js';
import { workspaceMemberRoutes } from './workspace-members/workspace-members.routes.js';
import { workspaceRoutes } from './workspaces/workspaces.routes.js';

export const routes: readonly RouteDefinition[] = [
  ...meRoutes,
  ...organisationRoutes,
  ...userRoutes,
  ...userInviteRoutes,
  ...workspaceRoutes,
  ...workspaceMemberRoutes,
  ...apiKeyRoutes,
  ...integrationRoutes(integrationProviders),
  ...providerRoutes,
  ...virtualKeyRoutes,
  ...configRoutes,
  ...deploymentRoutes,
  ...guardrailRoutes,
  ...modelPricingRoutes,
  ...policyRoutes,
  ...alertRoutes,
  ...logsApiRoutes,
  ...secretReferenceRoutes,
  ...promptFamilyRoutes,
  ...mcpIntegrationRoutes,
  ...mcpServerRoutes,
];

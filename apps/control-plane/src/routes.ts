// Every admin route, by resource family. The OpenAPI document is generated from this list.
import { apiKeyRoutes } from './api-keys/api-keys.routes.js';
import type { RouteDefinition } from './http/route.js';
import { organisationRoutes } from './organisations/organisations.routes.js';
import { userInviteRoutes } from './user-invites/user-invites.routes.js';
import { userRoutes } from './users/users.routes.js';
import { workspaceMemberRoutes } from './workspace-members/workspace-members.routes.js';
import { workspaceRoutes } from './workspaces/workspaces.routes.js';

export const routes: readonly RouteDefinition[] = [
  ...organisationRoutes,
  ...userRoutes,
  ...userInviteRoutes,
  ...workspaceRoutes,
  ...workspaceMemberRoutes,
  ...apiKeyRoutes,
];

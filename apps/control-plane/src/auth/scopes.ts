// The scope catalogue: every `<resource>.<action>` an API key or token may be granted.
// docs/control-plane-auth.md lists it; a key never holds a scope outside this list.

const CRUD = ['create', 'read', 'list', 'update', 'delete'] as const;

/** Resource families and the actions each supports. */
export const SCOPE_CATALOGUE = {
  organisation: ['read', 'update'],
  workspaces: CRUD,
  workspace_members: CRUD,
  users: CRUD,
  user_invites: CRUD,
  api_keys: [...CRUD, 'rotate'],
  integrations: CRUD,
  providers: CRUD,
  virtual_keys: CRUD,
  configs: CRUD,
  guardrails: CRUD,
  prompts: [...CRUD, 'render', 'publish'],
  prompt_partials: CRUD,
  collections: CRUD,
  labels: CRUD,
  rate_limits_policies: CRUD,
  usage_limits_policies: CRUD,
  model_pricing: CRUD,
  secret_references: CRUD,
  mcp_integrations: CRUD,
  mcp_servers: CRUD,
  deployments: CRUD,
  audit_logs: ['read', 'list'],
  logs: ['list', 'view', 'export'],
  analytics: ['view'],
  feedback: ['create', 'update', 'list'],
  /** Gateway traffic: calling providers through the data plane. */
  completions: ['write'],
  mcp: ['invoke'],
  /** SCIM 2.0 provisioning of the organisation's users by an identity provider (/scim/v2). */
  scim: ['provision'],
} as const satisfies Record<string, readonly string[]>;

export type ScopeResource = keyof typeof SCOPE_CATALOGUE;
export type Scope = {
  [R in ScopeResource]: `${R}.${(typeof SCOPE_CATALOGUE)[R][number]}`;
}[ScopeResource];

export const ALL_SCOPES: readonly Scope[] = Object.freeze(
  (Object.entries(SCOPE_CATALOGUE) as [ScopeResource, readonly string[]][]).flatMap(([resource, actions]) =>
    actions.map((action) => `${resource}.${action}` as Scope),
  ),
);

const KNOWN = new Set<string>(ALL_SCOPES);

export function isScope(value: string): value is Scope {
  return KNOWN.has(value);
}

/** Resources that exist only at organisation level: workspace keys can never hold their scopes. */
const ORGANISATION_ONLY: ReadonlySet<ScopeResource> = new Set([
  'organisation',
  'workspaces',
  'users',
  'user_invites',
  'integrations',
  'model_pricing',
  'secret_references',
  'mcp_integrations',
  'scim',
]);

/** Organisation-managed resources a workspace key may still read: its own workspace and members. */
const WORKSPACE_READABLE: ReadonlySet<string> = new Set([
  'workspaces.read',
  'workspaces.list',
  'workspace_members.read',
  'workspace_members.list',
]);

/** Scopes a workspace-bound key may hold (spec 5.3: no organisation, workspace or user management). */
export const WORKSPACE_SCOPES: readonly Scope[] = Object.freeze(
  ALL_SCOPES.filter((scope) => {
    if (WORKSPACE_READABLE.has(scope)) return true;
    const resource = scope.slice(0, scope.indexOf('.')) as ScopeResource;
    return !ORGANISATION_ONLY.has(resource) && resource !== 'workspace_members';
  }),
);

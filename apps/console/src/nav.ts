// The console's pages: path (below /console), title in the menu, and the scope the page's first
// call needs (a caller without it does not see the entry; the API would refuse it anyway).
export interface NavItem {
  readonly path: string;
  readonly title: string;
  readonly scope: string;
}

export const NAV: readonly NavItem[] = [
  { path: '/logs', title: 'Logs', scope: 'logs.list' },
  { path: '/analytics', title: 'Analytics', scope: 'analytics.view' },
  { path: '/api-keys', title: 'API keys', scope: 'api_keys.list' },
  { path: '/integrations', title: 'Integrations', scope: 'integrations.list' },
  { path: '/providers', title: 'Providers', scope: 'providers.list' },
  { path: '/configs', title: 'Configs', scope: 'configs.list' },
  { path: '/policies', title: 'Policies', scope: 'usage_limits_policies.list' },
  { path: '/audit', title: 'Audit log', scope: 'audit_logs.list' },
  { path: '/feedback', title: 'Feedback', scope: 'feedback.list' },
];

// The policy routes of both kinds behind one set of calls (the usage and rate-limit routes differ only
// in their path and a few fields), typed by the OpenAPI document.
import { type Api, unwrap } from '../api/client.js';
import type { paths } from '../api/schema.js';
import type { PolicyKind } from './policies-body.js';

export type UsagePolicy =
  paths['/policies/usage-limits/{usageLimitsPolicyId}']['get']['responses']['200']['content']['application/json'];
export type RatePolicy =
  paths['/policies/rate-limits/{rateLimitsPolicyId}']['get']['responses']['200']['content']['application/json'];
export type AnyPolicy = UsagePolicy | RatePolicy;
export type UsageEntity =
  paths['/policies/usage-limits/{usageLimitsPolicyId}/entities']['get']['responses']['200']['content']['application/json']['data'][number];
export type RateEntity =
  paths['/policies/rate-limits/{rateLimitsPolicyId}/entities']['get']['responses']['200']['content']['application/json']['data'][number];
/** An entity a policy applies to; those of a usage-limit policy carry `current_usage`. */
export type PolicyEntity = UsageEntity | RateEntity;

export interface ListQuery {
  page_size: number;
  current_page: number;
  status: 'active' | 'archived';
  workspace_id?: string;
}

export async function listPolicies(api: Api, kind: PolicyKind, query: ListQuery) {
  if (kind === 'usage') return unwrap(await api.GET('/policies/usage-limits', { params: { query } }));
  return unwrap(await api.GET('/policies/rate-limits', { params: { query } }));
}

export async function getPolicy(api: Api, kind: PolicyKind, id: string): Promise<AnyPolicy> {
  if (kind === 'usage')
    return unwrap(
      await api.GET('/policies/usage-limits/{usageLimitsPolicyId}', {
        params: { path: { usageLimitsPolicyId: id } },
      }),
    );
  return unwrap(
    await api.GET('/policies/rate-limits/{rateLimitsPolicyId}', {
      params: { path: { rateLimitsPolicyId: id } },
    }),
  );
}

// The bodies are built by policies-body.ts; the API validates them (and names what is wrong).
type Body = Record<string, unknown>;

export async function createPolicy(api: Api, kind: PolicyKind, body: Body): Promise<{ id: string }> {
  if (kind === 'usage') return unwrap(await api.POST('/policies/usage-limits', { body: body as never }));
  return unwrap(await api.POST('/policies/rate-limits', { body: body as never }));
}

export async function updatePolicy(api: Api, kind: PolicyKind, id: string, body: Body): Promise<void> {
  if (kind === 'usage')
    unwrap(
      await api.PUT('/policies/usage-limits/{usageLimitsPolicyId}', {
        params: { path: { usageLimitsPolicyId: id } },
        body: body as never,
      }),
    );
  else
    unwrap(
      await api.PUT('/policies/rate-limits/{rateLimitsPolicyId}', {
        params: { path: { rateLimitsPolicyId: id } },
        body: body as never,
      }),
    );
}

export async function archivePolicy(api: Api, kind: PolicyKind, id: string): Promise<void> {
  if (kind === 'usage')
    unwrap(
      await api.DELETE('/policies/usage-limits/{usageLimitsPolicyId}', {
        params: { path: { usageLimitsPolicyId: id } },
      }),
    );
  else
    unwrap(
      await api.DELETE('/policies/rate-limits/{rateLimitsPolicyId}', {
        params: { path: { rateLimitsPolicyId: id } },
      }),
    );
}

export async function listEntities(api: Api, kind: PolicyKind, id: string, page: number, pageSize: number) {
  const query = { page_size: pageSize, current_page: page };
  if (kind === 'usage')
    return unwrap(
      await api.GET('/policies/usage-limits/{usageLimitsPolicyId}/entities', {
        params: { path: { usageLimitsPolicyId: id }, query },
      }),
    );
  return unwrap(
    await api.GET('/policies/rate-limits/{rateLimitsPolicyId}/entities', {
      params: { path: { rateLimitsPolicyId: id }, query },
    }),
  );
}

export async function resetEntity(api: Api, policyId: string, entityId: string) {
  return unwrap(
    await api.POST('/policies/usage-limits/{usageLimitsPolicyId}/entities/{entityId}/reset', {
      params: { path: { usageLimitsPolicyId: policyId, entityId } },
      body: {},
    }),
  );
}

/** The scope a route of this kind needs (`usage_limits_policies.update`, ...). */
export function policyScope(
  kind: PolicyKind,
  action: 'list' | 'read' | 'create' | 'update' | 'delete',
): string {
  return `${kind === 'usage' ? 'usage_limits' : 'rate_limits'}_policies.${action}`;
}

export function isUsagePolicy(policy: AnyPolicy): policy is UsagePolicy {
  return policy.object === 'policy_usage_limits';
}

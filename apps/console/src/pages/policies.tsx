// The Policies page (issue 22): usage-limit policies (and rate-limit ones when the caller may list
// them): lists, a new policy, one policy's settings and the entities it applies to, with each one's
// current usage against the limit and its reset. The view is in the query string (policies-href.ts).
import { useSearch } from 'wouter-preact';
import { can } from '../api/me.js';
import { useConsole } from '../context.js';
import type { PolicyKind } from './policies-body.js';
import { PolicyCreate } from './policies-create.js';
import { PolicyDetail } from './policies-detail.js';
import { PoliciesList } from './policies-list.js';

export function PoliciesPage() {
  const { me } = useConsole();
  const query = new URLSearchParams(useSearch());
  const kind: PolicyKind =
    query.get('kind') === 'rate' && can(me, 'rate_limits_policies.list') ? 'rate' : 'usage';
  const id = query.get('id');
  if (query.has('new')) return <PolicyCreate kind={kind} />;
  if (id) return <PolicyDetail kind={kind} id={id} />;
  return <PoliciesList kind={kind} />;
}

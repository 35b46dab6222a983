// How a policy reads in a table: its limit, its conditions and group_by, and where it applies.
import { formatNumber } from '../components/format.js';
import { formatUsage } from '../components/usage-bar.js';
import type { WorkspaceName } from '../components/workspace-names.js';
import { type AnyPolicy, isUsagePolicy } from './policies-api.js';

const UNITS = { rpm: 'per minute', rph: 'per hour', rpd: 'per day' } as const;

export function limitText(policy: AnyPolicy): string {
  if (isUsagePolicy(policy)) {
    const reset =
      policy.periodic_reset ??
      (policy.periodic_reset_days ? `every ${policy.periodic_reset_days} days` : 'no reset');
    return `${formatUsage(policy.credit_limit, policy.type)} (${reset})`;
  }
  return `${formatNumber(policy.value)} ${policy.type} ${UNITS[policy.unit]}`;
}

/** The conditions, a workspace named by `workspaceName` (the API stores its id). */
export function Conditions(props: { policy: AnyPolicy; workspaceName: WorkspaceName }) {
  return (
    <span class="policy-keys">
      {props.policy.conditions.map((c) => (
        <code key={c.key} title={c.value}>
          {c.key} = {c.key === 'workspace_id' && c.value !== '*' ? props.workspaceName(c.value) : c.value}
        </code>
      ))}
    </span>
  );
}

export function GroupBy(props: { policy: AnyPolicy }) {
  return (
    <span class="policy-keys">
      {props.policy.group_by.map((g) => (
        <code key={g.key}>{g.key}</code>
      ))}
    </span>
  );
}

// An entity's current usage against a usage limit: a <progress> bar and the numbers, marked
// exhausted at or above the limit (the gateways refuse from there).
import { formatNumber, formatUsd } from './format.js';

export function formatUsage(value: number, type: 'cost' | 'tokens'): string {
  return type === 'cost' ? formatUsd(value) : `${formatNumber(value)} tokens`;
}

export function UsageBar(props: {
  usage: number | null;
  limit: number;
  type: 'cost' | 'tokens';
  label: string;
}) {
  if (props.usage === null)
    return (
      <span class="muted" data-testid="usage-none">
        not counted for this entity
      </span>
    );
  const exhausted = props.usage >= props.limit;
  const percent = props.limit > 0 ? Math.min(100, (props.usage / props.limit) * 100) : 100;
  return (
    <div class={exhausted ? 'usage-bar exhausted' : 'usage-bar'} data-usage={props.usage}>
      <progress value={Math.min(props.usage, props.limit)} max={props.limit} aria-label={props.label} />
      <small>
        <span data-testid="usage-value">{formatUsage(props.usage, props.type)}</span> of{' '}
        {formatUsage(props.limit, props.type)} ({percent.toFixed(percent < 10 ? 1 : 0)}%)
        {exhausted ? <strong> exhausted</strong> : null}
      </small>
    </div>
  );
}

// The rate limits, usage limits and expiry of a key or provider form (state in limits-form.ts).
// The API validates every value; its error is shown under the part it names.
import { FieldError } from './field-error.js';
import type { LimitsState, RateLimitRow, UsageLimitRow } from './limits-form.js';

export function LimitsFields(props: {
  value: LimitsState;
  onChange(value: LimitsState): void;
  error: unknown;
  /** Field names of the request body (`body.rate_limits`...). */
  expiry?: boolean;
}) {
  const { value } = props;
  const setRate = (index: number, row: Partial<RateLimitRow>) =>
    props.onChange({ ...value, rate: value.rate.map((r, i) => (i === index ? { ...r, ...row } : r)) });
  const setUsage = (index: number, row: Partial<UsageLimitRow>) =>
    props.onChange({ ...value, usage: value.usage.map((r, i) => (i === index ? { ...r, ...row } : r)) });
  return (
    <div class="limits-fields">
      <fieldset>
        <legend>Rate limits</legend>
        {value.rate.map((row, index) => (
          <div key={index} class="inline-group limit-row">
            <select
              aria-label={`rate limit ${index + 1} type`}
              value={row.type}
              onChange={(e) =>
                setRate(index, { type: (e.target as HTMLSelectElement).value as RateLimitRow['type'] })
              }
            >
              <option value="requests">requests</option>
              <option value="tokens">tokens</option>
            </select>
            <input
              type="number"
              min="1"
              step="1"
              aria-label={`rate limit ${index + 1} value`}
              value={row.value}
              onInput={(e) => setRate(index, { value: (e.target as HTMLInputElement).value })}
            />
            <select
              aria-label={`rate limit ${index + 1} unit`}
              value={row.unit}
              onChange={(e) =>
                setRate(index, { unit: (e.target as HTMLSelectElement).value as RateLimitRow['unit'] })
              }
            >
              <option value="rpm">per minute</option>
              <option value="rph">per hour</option>
              <option value="rpd">per day</option>
            </select>
            <button
              type="button"
              class="secondary outline"
              onClick={() => props.onChange({ ...value, rate: value.rate.filter((_, i) => i !== index) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary outline"
          onClick={() =>
            props.onChange({ ...value, rate: [...value.rate, { type: 'requests', unit: 'rpm', value: '' }] })
          }
        >
          Add a rate limit
        </button>
        <FieldError error={props.error} field="body.rate_limits" id="rate-limits-error" />
      </fieldset>
      <fieldset>
        <legend>Usage limits</legend>
        {value.usage.map((row, index) => (
          <div key={index} class="inline-group limit-row">
            <select
              aria-label={`usage limit ${index + 1} type`}
              value={row.type}
              onChange={(e) =>
                setUsage(index, { type: (e.target as HTMLSelectElement).value as UsageLimitRow['type'] })
              }
            >
              <option value="cost">cost (USD)</option>
              <option value="tokens">tokens</option>
            </select>
            <input
              type="number"
              min="0"
              step="any"
              placeholder="limit"
              aria-label={`usage limit ${index + 1} credit limit`}
              value={row.credit_limit}
              onInput={(e) => setUsage(index, { credit_limit: (e.target as HTMLInputElement).value })}
            />
            <input
              type="number"
              min="0"
              step="any"
              placeholder="alert at"
              aria-label={`usage limit ${index + 1} alert threshold`}
              value={row.alert_threshold}
              onInput={(e) => setUsage(index, { alert_threshold: (e.target as HTMLInputElement).value })}
            />
            <select
              aria-label={`usage limit ${index + 1} reset`}
              value={row.periodic_reset}
              onChange={(e) =>
                setUsage(index, {
                  periodic_reset: (e.target as HTMLSelectElement).value as UsageLimitRow['periodic_reset'],
                })
              }
            >
              <option value="">never resets</option>
              <option value="weekly">resets weekly</option>
              <option value="monthly">resets monthly</option>
            </select>
            <button
              type="button"
              class="secondary outline"
              onClick={() => props.onChange({ ...value, usage: value.usage.filter((_, i) => i !== index) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary outline"
          onClick={() =>
            props.onChange({
              ...value,
              usage: [
                ...value.usage,
                {
                  type: value.usage.some((u) => u.type === 'cost') ? 'tokens' : 'cost',
                  credit_limit: '',
                  alert_threshold: '',
                  periodic_reset: '',
                },
              ],
            })
          }
        >
          Add a usage limit
        </button>
        <FieldError error={props.error} field="body.usage_limits" id="usage-limits-error" />
      </fieldset>
      {props.expiry === false ? null : (
        <label>
          Expires at <small class="muted">(your time zone; empty: the workspace default, or never)</small>
          <input
            type="datetime-local"
            value={value.expiresAt}
            onInput={(e) => props.onChange({ ...value, expiresAt: (e.target as HTMLInputElement).value })}
          />
          <FieldError error={props.error} field="body.expires_at" id="expires-at-error" />
        </label>
      )}
    </div>
  );
}

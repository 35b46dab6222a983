// The rate limits, usage limits and expiry of a key or provider form (state in limits-form.ts).
// The API validates every value; its error is shown under the part it names.
import type { ComponentChildren } from 'preact';
import { FieldError } from './field-error.js';
import type { LimitsState, RateLimitRow, UsageLimitRow } from './limits-form.js';

export function LimitsFields(props: {
  value: LimitsState;
  onChange(value: LimitsState): void;
  error: unknown;
  /** false: no expiry field (the form has none). */
  expiry?: boolean;
}) {
  const { value } = props;
  return (
    <div class="limits-fields">
      <LimitRows
        legend="Rate limits"
        what="rate limit"
        rows={value.rate}
        onChange={(rate) => props.onChange({ ...value, rate })}
        added={() => ({ type: 'requests', unit: 'rpm', value: '' })}
        error={props.error}
        field="body.rate_limits"
        errorId="rate-limits-error"
      >
        {(row, name, set) => (
          <>
            <Choice
              label={name('type')}
              value={row.type}
              options={[
                ['requests', 'requests'],
                ['tokens', 'tokens'],
              ]}
              onChange={(type) => set({ type })}
            />
            <input
              type="number"
              min="1"
              step="1"
              aria-label={name('value')}
              value={row.value}
              onInput={(e) => set({ value: (e.target as HTMLInputElement).value })}
            />
            <Choice
              label={name('unit')}
              value={row.unit}
              options={[
                ['rpm', 'per minute'],
                ['rph', 'per hour'],
                ['rpd', 'per day'],
              ]}
              onChange={(unit) => set({ unit })}
            />
          </>
        )}
      </LimitRows>
      <LimitRows
        legend="Usage limits"
        what="usage limit"
        rows={value.usage}
        onChange={(usage) => props.onChange({ ...value, usage })}
        added={() => ({
          type: value.usage.some((u) => u.type === 'cost') ? 'tokens' : 'cost',
          credit_limit: '',
          alert_threshold: '',
          periodic_reset: '',
        })}
        error={props.error}
        field="body.usage_limits"
        errorId="usage-limits-error"
      >
        {(row, name, set) => (
          <>
            <Choice
              label={name('type')}
              value={row.type}
              options={[
                ['cost', 'cost (USD)'],
                ['tokens', 'tokens'],
              ]}
              onChange={(type) => set({ type })}
            />
            <input
              type="number"
              min="0"
              step="any"
              placeholder="limit"
              aria-label={name('credit limit')}
              value={row.credit_limit}
              onInput={(e) => set({ credit_limit: (e.target as HTMLInputElement).value })}
            />
            <input
              type="number"
              min="0"
              step="any"
              placeholder="alert at"
              aria-label={name('alert threshold')}
              value={row.alert_threshold}
              onInput={(e) => set({ alert_threshold: (e.target as HTMLInputElement).value })}
            />
            <Choice
              label={name('reset')}
              value={row.periodic_reset}
              options={[
                ['', 'never resets'],
                ['weekly', 'resets weekly'],
                ['monthly', 'resets monthly'],
              ]}
              onChange={(periodic_reset) => set({ periodic_reset })}
            />
          </>
        )}
      </LimitRows>
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

/** One kind of limit: its rows (each with Remove), "Add a …", and the API's error for the list. */
function LimitRows<R extends RateLimitRow | UsageLimitRow>(props: {
  legend: string;
  /** "rate limit": names the fields ("rate limit 2 unit") and the add button. */
  what: string;
  rows: readonly R[];
  onChange(rows: R[]): void;
  added(): R;
  error: unknown;
  field: string;
  errorId: string;
  children(row: R, name: (part: string) => string, set: (change: Partial<R>) => void): ComponentChildren;
}) {
  const { rows } = props;
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {rows.map((row, index) => (
        <div key={index} class="inline-group limit-row">
          {props.children(
            row,
            (part) => `${props.what} ${index + 1} ${part}`,
            (change) => props.onChange(rows.map((r, i) => (i === index ? { ...r, ...change } : r))),
          )}
          <button
            type="button"
            class="secondary outline"
            onClick={() => props.onChange(rows.filter((_, i) => i !== index))}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="secondary outline"
        onClick={() => props.onChange([...rows, props.added()])}
      >
        Add a {props.what}
      </button>
      <FieldError error={props.error} field={props.field} id={props.errorId} />
    </fieldset>
  );
}

/** A select of a limit row, named for screen readers (the row has no visible labels). */
function Choice<V extends string>(props: {
  label: string;
  value: V;
  options: readonly (readonly [V, string])[];
  onChange(value: V): void;
}) {
  return (
    <select
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as V)}
    >
      {props.options.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </select>
  );
}

// The time range of a list's filter form: any time, a preset relative to now, or a custom range
// in the browser's local time (sent to the API as UTC). Part of the form's draft until applied.
import { RANGE_PRESETS } from './logs-time-range-query.js';

export interface TimeRangeDraft {
  /** '' (any time), a preset value, or 'custom'. */
  readonly range: string;
  /** `datetime-local` values of a custom range. */
  readonly from: string;
  readonly to: string;
}

export function LogsTimeRange(props: {
  draft: TimeRangeDraft;
  onChange(next: TimeRangeDraft): void;
  /** Messages the API gave for start_time / end_time. */
  errors: { start_time?: string | undefined; end_time?: string | undefined };
}) {
  const { draft } = props;
  return (
    <>
      <label>
        Time range
        <select
          name="range"
          value={draft.range}
          onChange={(e) => props.onChange({ ...draft, range: (e.target as HTMLSelectElement).value })}
        >
          <option value="">Any time</option>
          {RANGE_PRESETS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </select>
      </label>
      {draft.range === 'custom' ? (
        <>
          <TimeInput
            label="From"
            name="start_time"
            value={draft.from}
            error={props.errors.start_time}
            onInput={(from) => props.onChange({ ...draft, from })}
          />
          <TimeInput
            label="Until"
            name="end_time"
            value={draft.to}
            error={props.errors.end_time}
            onInput={(to) => props.onChange({ ...draft, to })}
          />
        </>
      ) : null}
    </>
  );
}

function TimeInput(props: {
  label: string;
  name: string;
  value: string;
  error: string | undefined;
  onInput(value: string): void;
}) {
  const errorId = `${props.name}-error`;
  return (
    <label>
      {props.label}
      <input
        type="datetime-local"
        name={props.name}
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? errorId : undefined}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
      {props.error ? <small id={errorId}>{props.error}</small> : null}
    </label>
  );
}

// The filter form of a list page (logs, audit logs, feedback): fields named as the API's query
// parameters, edited as a draft and written to the URL query when applied (so the filtered view
// can be shared and reloaded). An API error naming a field is shown next to that field.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import { LogsTimeRange, type TimeRangeDraft } from './logs-time-range.js';
import { isoToLocalInput, localInputToIso, TIME_PARAMS } from './logs-time-range-query.js';
import { fieldOfParam } from './url-query.js';

export interface FilterField {
  /** The API's query parameter (and the URL's). */
  readonly name: string;
  readonly label: string;
  readonly kind?: 'text' | 'number' | 'select';
  readonly options?: readonly { value: string; label: string }[];
  /** The label of a select's empty choice (the API's default); "Any" unless given. */
  readonly emptyLabel?: string;
  readonly placeholder?: string;
  readonly step?: string;
}

/** Every URL parameter a form with `fields` (and a time range) writes. */
export function filterNames(fields: readonly FilterField[], timeRange: boolean): string[] {
  return [...fields.map((f) => f.name), ...(timeRange ? TIME_PARAMS : [])];
}

function draftOf(fields: readonly FilterField[], search: URLSearchParams) {
  const values: Record<string, string> = {};
  for (const f of fields) values[f.name] = search.get(f.name) ?? '';
  const start = search.get('start_time');
  const end = search.get('end_time');
  const time: TimeRangeDraft = {
    range: search.get('range') ?? (start || end ? 'custom' : ''),
    from: isoToLocalInput(start),
    to: isoToLocalInput(end),
  };
  return { values, time };
}

export function UrlFilterForm(props: {
  label: string;
  fields: readonly FilterField[];
  timeRange: boolean;
  search: URLSearchParams;
  /** The list's load error: one naming a field is shown beside it. */
  error: Error | undefined;
  apply(values: Record<string, string>): void;
  children?: ComponentChildren;
}) {
  const searchText = props.search.toString();
  const [draft, setDraft] = useState(() => draftOf(props.fields, props.search));
  // The draft follows the URL (back, links).
  useEffect(() => setDraft(draftOf(props.fields, props.search)), [searchText]);
  const api = props.error instanceof ApiError ? props.error : undefined;
  const errorField = fieldOfParam(api?.param);
  const errorFor = (name: string) => (api && errorField === name ? api.message : undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    const values: Record<string, string> = { ...draft.values };
    if (props.timeRange) {
      const custom = draft.time.range === 'custom';
      values.range = custom ? '' : draft.time.range;
      values.start_time = custom ? localInputToIso(draft.time.from) : '';
      values.end_time = custom ? localInputToIso(draft.time.to) : '';
    }
    props.apply(values);
  };
  const clear = () => {
    const values: Record<string, string> = {};
    for (const name of filterNames(props.fields, props.timeRange)) values[name] = '';
    props.apply(values);
  };
  return (
    <details class="filter-panel" open>
      <summary>{props.label}</summary>
      <form onSubmit={submit} aria-label={props.label}>
        <div class="filters">
          {props.timeRange ? (
            <LogsTimeRange
              draft={draft.time}
              onChange={(time) => setDraft((d) => ({ ...d, time }))}
              errors={{ start_time: errorFor('start_time'), end_time: errorFor('end_time') }}
            />
          ) : null}
          {props.fields.map((field) => (
            <Field
              key={field.name}
              field={field}
              value={draft.values[field.name] ?? ''}
              error={errorFor(field.name)}
              onInput={(value) => setDraft((d) => ({ ...d, values: { ...d.values, [field.name]: value } }))}
            />
          ))}
        </div>
        {props.children}
        <div class="filter-actions">
          <button type="submit">Apply filters</button>
          <button type="button" class="secondary outline" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
    </details>
  );
}

function Field(props: {
  field: FilterField;
  value: string;
  error: string | undefined;
  onInput(v: string): void;
}) {
  const { field } = props;
  const errorId = `${field.name}-error`;
  const invalid = props.error ? { 'aria-invalid': 'true' as const, 'aria-describedby': errorId } : {};
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the label wraps the field's input or select below
    <label>
      {field.label}
      {field.kind === 'select' ? (
        <select
          name={field.name}
          value={props.value}
          onChange={(e) => props.onInput((e.target as HTMLSelectElement).value)}
          {...invalid}
        >
          <option value="">{field.emptyLabel ?? 'Any'}</option>
          {(field.options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          name={field.name}
          type={field.kind === 'number' ? 'number' : 'text'}
          step={field.step}
          value={props.value}
          placeholder={field.placeholder}
          spellcheck={false}
          autocomplete="off"
          onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
          {...invalid}
        />
      )}
      {props.error ? <small id={errorId}>{props.error}</small> : null}
    </label>
  );
}

/** Whether the form shows `error` beside one of `names` (else the page shows it in a banner). */
export function errorShownByField(error: Error | undefined, names: readonly string[]): boolean {
  const field = error instanceof ApiError ? fieldOfParam(error.param) : undefined;
  return field !== undefined && names.includes(field);
}

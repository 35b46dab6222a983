// Choosing a key's scopes: the caller's own scopes valid for the key's level, grouped by resource,
// with a text filter. Chosen scopes that the level does not allow (the key type changed after
// choosing) stay chosen and are listed apart, so nothing is dropped silently; the API refuses them
// and its message is shown under the field.
import { useState } from 'preact/hooks';
import { FieldError } from './field-error.js';
import { errorFor } from './form-errors.js';
import { invalidChoices, type KeyLevel, resourceTitle, scopeGroups } from './scope-catalogue.js';

export function ScopePicker(props: {
  held: readonly string[];
  level: KeyLevel;
  chosen: readonly string[];
  onChange(scopes: string[]): void;
  error: unknown;
}) {
  const [filter, setFilter] = useState('');
  const chosen = new Set(props.chosen);
  const toggle = (scope: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(scope);
    else next.delete(scope);
    props.onChange([...next]);
  };
  const setMany = (scopes: readonly string[], on: boolean) => {
    const next = new Set(chosen);
    for (const scope of scopes)
      if (on) next.add(scope);
      else next.delete(scope);
    props.onChange([...next]);
  };
  const needle = filter.trim().toLowerCase();
  const groups = scopeGroups(props.held, props.level)
    .map((g) => ({ ...g, scopes: g.scopes.filter((s) => needle === '' || s.includes(needle)) }))
    .filter((g) => g.scopes.length > 0);
  const invalid = invalidChoices(props.chosen, props.level);
  const hasError = errorFor(props.error, 'body.scopes') !== undefined;
  return (
    <fieldset
      class="scope-picker"
      data-testid="scope-picker"
      aria-invalid={hasError ? true : undefined}
      aria-describedby={hasError ? 'scopes-error' : undefined}
    >
      <legend>
        Scopes <small class="muted">({props.chosen.length} chosen)</small>
      </legend>
      <input
        type="search"
        placeholder="Filter scopes (e.g. logs, completions)"
        aria-label="Filter scopes"
        value={filter}
        onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
      />
      {invalid.length > 0 ? (
        <div class="scope-invalid" data-testid="scope-invalid">
          <p>
            Not valid for a {props.level} key (the API will refuse them): uncheck them or change the key type.
          </p>
          {invalid.map((scope) => (
            <label key={scope}>
              <input type="checkbox" checked onChange={() => toggle(scope, false)} />
              <code>{scope}</code>
            </label>
          ))}
        </div>
      ) : null}
      <div class="scope-groups" data-testid="scope-groups">
        {groups.map((group) => {
          const all = group.scopes.every((s) => chosen.has(s));
          return (
            <fieldset key={group.resource} class="scope-group">
              <legend>
                <label>
                  <input
                    type="checkbox"
                    checked={all}
                    aria-label={`all ${group.resource} scopes`}
                    onChange={(e) => setMany(group.scopes, (e.target as HTMLInputElement).checked)}
                  />
                  {resourceTitle(group.resource)}
                </label>
              </legend>
              {group.scopes.map((scope) => (
                <label key={scope}>
                  <input
                    type="checkbox"
                    name="scopes"
                    value={scope}
                    aria-label={scope}
                    checked={chosen.has(scope)}
                    onChange={(e) => toggle(scope, (e.target as HTMLInputElement).checked)}
                  />
                  {scope.slice(group.resource.length + 1)}
                </label>
              ))}
            </fieldset>
          );
        })}
        {groups.length === 0 ? <p class="muted">No scope matches.</p> : null}
      </div>
      <FieldError error={props.error} field="body.scopes" id="scopes-error" />
    </fieldset>
  );
}

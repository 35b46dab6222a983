// The policy form, for both kinds, to create a policy (every field) or edit one (name and limits: its
// conditions, group_by, type and workspace are fixed once it exists and shown read-only). The API's
// validation error goes under the field its `param` names (`body.conditions.0.key`), else above the
// button.
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import { isOrganisationLevel } from '../api/me.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FieldMessage, invalidMessageProps } from '../components/field-error.js';
import { useKnownWorkspaces } from '../components/workspace-names.js';
import { WorkspaceSelect } from '../components/workspace-select.js';
import { useConsole } from '../context.js';
import { formHasField, POLICY_KEYS, type PolicyDraft, policyFieldOf } from './policies-body.js';

export function PolicyForm(props: {
  initial: PolicyDraft;
  mode: 'create' | 'edit';
  submitLabel: string;
  onSubmit(draft: PolicyDraft): Promise<void>;
  readOnly?: boolean;
}) {
  const { me } = useConsole();
  const workspaces = useKnownWorkspaces();
  const [draft, setDraft] = useState(props.initial);
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const fixed = props.mode === 'edit' || props.readOnly === true;
  const editable = props.readOnly !== true;
  const update = (change: Partial<PolicyDraft>) => setDraft({ ...draft, ...change });
  const usage = (change: Partial<PolicyDraft['usage']>) => update({ usage: { ...draft.usage, ...change } });
  const rate = (change: Partial<PolicyDraft['rate']>) => update({ rate: { ...draft.rate, ...change } });

  // Which field the API's error names: shown under it when the form has it, else in the banner.
  const at = error instanceof ApiError ? policyFieldOf(error.param) : undefined;
  const onField = at !== undefined && formHasField(draft, at);
  const field = (name: string) => {
    const message = onField && at === name ? error?.message : undefined;
    const id = `policy-${name.replaceAll('.', '-')}-error`;
    return { message, id, invalid: invalidMessageProps(id, message) };
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await props.onSubmit(draft);
      setError(undefined);
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };

  const name = field('name');
  const workspace = field('workspace_id');
  const type = field('type');
  return (
    <form onSubmit={submit} data-testid="policy-form">
      <div class="grid">
        <label>
          Name
          <input
            name="name"
            value={draft.name}
            readOnly={!editable}
            onInput={(e) => update({ name: (e.target as HTMLInputElement).value })}
            {...name.invalid}
          />
          <FieldMessage id={name.id} message={name.message} />
        </label>
        {isOrganisationLevel(me) ? (
          <div>
            <WorkspaceSelect
              id="policy-workspace"
              label="Workspace"
              value={draft.workspace}
              onChange={(value) => update({ workspace: value })}
              disabled={fixed}
              emptyLabel="Organisation-level (every workspace)"
              invalid={workspace.invalid}
            />
            <FieldMessage id={workspace.id} message={workspace.message} />
          </div>
        ) : null}
        <div>
          <label for="policy-type">Type</label>
          <select
            id="policy-type"
            value={draft.kind === 'usage' ? draft.usage.type : draft.rate.type}
            disabled={fixed}
            onChange={(e) => {
              const value = (e.target as HTMLSelectElement).value;
              if (draft.kind === 'usage') usage({ type: value as 'cost' | 'tokens' });
              else rate({ type: value as 'requests' | 'tokens' });
            }}
            {...type.invalid}
          >
            {draft.kind === 'usage' ? (
              <>
                <option value="cost">Cost (USD)</option>
                <option value="tokens">Tokens</option>
              </>
            ) : (
              <>
                <option value="requests">Requests</option>
                <option value="tokens">Tokens</option>
              </>
            )}
          </select>
          <FieldMessage id={type.id} message={type.message} />
        </div>
      </div>
      {draft.kind === 'usage' ? (
        <UsageFields draft={draft} usage={usage} field={field} readOnly={!editable} />
      ) : (
        <RateFields draft={draft} rate={rate} field={field} readOnly={!editable} />
      )}
      <KeyRows
        title="Conditions"
        hint="All must match a request for the policy to count it; * matches any value."
        rows={draft.conditions}
        withValue
        fixed={fixed}
        field={field}
        prefix="conditions"
        label="Condition"
        onChange={(conditions) => update({ conditions })}
      />
      <KeyRows
        title="Group by"
        hint="One counter per distinct combination of these keys' values."
        rows={draft.groupBy.map((key) => ({ key, value: '' }))}
        withValue={false}
        fixed={fixed}
        field={field}
        prefix="group_by"
        label="Group by"
        onChange={(rows) => update({ groupBy: rows.map((row) => row.key) })}
      />
      <datalist id="policy-keys">
        {POLICY_KEYS.map((key) => (
          <option key={key} value={key} />
        ))}
        <option value="metadata." />
      </datalist>
      <datalist id="policy-workspaces">
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </datalist>
      {/* Anything no field shows (a conflict, a missing scope, a param the form has no field for). */}
      <ErrorBanner error={onField ? undefined : error} />
      {editable ? (
        <button type="submit" aria-busy={busy} disabled={busy}>
          {props.submitLabel}
        </button>
      ) : null}
    </form>
  );
}

type FieldOf = (name: string) => {
  message: string | undefined;
  id: string;
  invalid: ReturnType<typeof invalidMessageProps>;
};

function UsageFields(props: {
  draft: PolicyDraft;
  usage(change: Partial<PolicyDraft['usage']>): void;
  field: FieldOf;
  readOnly: boolean;
}) {
  const { usage } = props.draft;
  const limit = props.field('credit_limit');
  const threshold = props.field('alert_threshold');
  const reset = props.field(usage.reset === 'days' ? 'periodic_reset_days' : 'periodic_reset');
  const next = props.field('next_usage_reset_at');
  const unit = usage.type === 'cost' ? 'USD' : 'tokens';
  return (
    <div class="grid">
      <label>
        Credit limit ({unit})
        <input
          name="credit_limit"
          inputMode="decimal"
          value={usage.creditLimit}
          readOnly={props.readOnly}
          onInput={(e) => props.usage({ creditLimit: (e.target as HTMLInputElement).value })}
          {...limit.invalid}
        />
        <FieldMessage id={limit.id} message={limit.message} />
      </label>
      <label>
        Alert threshold ({unit}, optional)
        <input
          name="alert_threshold"
          inputMode="decimal"
          value={usage.alertThreshold}
          readOnly={props.readOnly}
          onInput={(e) => props.usage({ alertThreshold: (e.target as HTMLInputElement).value })}
          {...threshold.invalid}
        />
        <FieldMessage id={threshold.id} message={threshold.message} />
      </label>
      <div>
        <label for="policy-periodic-reset">Periodic reset</label>
        <select
          id="policy-periodic-reset"
          value={usage.reset}
          disabled={props.readOnly}
          onChange={(e) =>
            props.usage({ reset: (e.target as HTMLSelectElement).value as PolicyDraft['usage']['reset'] })
          }
          {...(usage.reset === 'days' ? {} : reset.invalid)}
        >
          <option value="none">Never (one budget)</option>
          <option value="weekly">Weekly</option>
          <option value="monthly">Monthly</option>
          <option value="days">Every N days</option>
        </select>
        {usage.reset === 'days' ? null : <FieldMessage id={reset.id} message={reset.message} />}
      </div>
      {usage.reset === 'days' ? (
        <label>
          Reset every (days)
          <input
            name="periodic_reset_days"
            inputMode="numeric"
            value={usage.resetDays}
            readOnly={props.readOnly}
            onInput={(e) => props.usage({ resetDays: (e.target as HTMLInputElement).value })}
            {...reset.invalid}
          />
          <FieldMessage id={reset.id} message={reset.message} />
        </label>
      ) : null}
      {usage.reset !== 'none' ? (
        <label>
          Next reset at (optional)
          <input
            type="datetime-local"
            name="next_usage_reset_at"
            value={usage.nextResetAt}
            readOnly={props.readOnly}
            onInput={(e) => props.usage({ nextResetAt: (e.target as HTMLInputElement).value })}
            {...next.invalid}
          />
          <FieldMessage id={next.id} message={next.message} />
        </label>
      ) : null}
    </div>
  );
}

function RateFields(props: {
  draft: PolicyDraft;
  rate(change: Partial<PolicyDraft['rate']>): void;
  field: FieldOf;
  readOnly: boolean;
}) {
  const { rate } = props.draft;
  const unit = props.field('unit');
  const value = props.field('value');
  return (
    <div class="grid">
      <label>
        Limit ({rate.type})
        <input
          name="value"
          inputMode="numeric"
          value={rate.value}
          readOnly={props.readOnly}
          onInput={(e) => props.rate({ value: (e.target as HTMLInputElement).value })}
          {...value.invalid}
        />
        <FieldMessage id={value.id} message={value.message} />
      </label>
      <div>
        <label for="policy-unit">Per</label>
        <select
          id="policy-unit"
          value={rate.unit}
          disabled={props.readOnly}
          onChange={(e) =>
            props.rate({ unit: (e.target as HTMLSelectElement).value as PolicyDraft['rate']['unit'] })
          }
          {...unit.invalid}
        >
          <option value="rpm">minute (rpm)</option>
          <option value="rph">hour (rph)</option>
          <option value="rpd">day (rpd)</option>
        </select>
        <FieldMessage id={unit.id} message={unit.message} />
      </div>
    </div>
  );
}

/** Rows of keys (group_by) or key = value pairs (conditions), added and removed while creating. */
function KeyRows(props: {
  title: string;
  hint: string;
  rows: readonly { key: string; value: string }[];
  withValue: boolean;
  fixed: boolean;
  field: FieldOf;
  prefix: string;
  label: string;
  onChange(rows: { key: string; value: string }[]): void;
}) {
  const all = props.field(props.prefix);
  const set = (index: number, change: Partial<{ key: string; value: string }>) =>
    props.onChange(props.rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <fieldset class="policy-rows">
      <legend>
        {props.title}{' '}
        <small class="muted">{props.fixed ? '(fixed once the policy exists)' : props.hint}</small>
      </legend>
      {props.rows.map((row, i) => {
        const key = props.field(`${props.prefix}.${i}.key`);
        const value = props.field(`${props.prefix}.${i}.value`);
        return (
          <div class="policy-row" key={i}>
            <div>
              <input
                aria-label={`${props.label} ${i + 1} key`}
                list="policy-keys"
                placeholder="key (workspace_id, api_key, metadata.env…)"
                value={row.key}
                disabled={props.fixed}
                onInput={(e) => set(i, { key: (e.target as HTMLInputElement).value })}
                {...key.invalid}
              />
              <FieldMessage id={key.id} message={key.message} />
            </div>
            {props.withValue ? (
              <div>
                <input
                  aria-label={`${props.label} ${i + 1} value`}
                  list={row.key === 'workspace_id' ? 'policy-workspaces' : undefined}
                  placeholder="value, or *"
                  value={row.value}
                  disabled={props.fixed}
                  onInput={(e) => set(i, { value: (e.target as HTMLInputElement).value })}
                  {...value.invalid}
                />
                <FieldMessage id={value.id} message={value.message} />
              </div>
            ) : null}
            {props.fixed ? null : (
              <button
                type="button"
                class="secondary outline compact"
                aria-label={`Remove ${props.label.toLowerCase()} ${i + 1}`}
                onClick={() => props.onChange(props.rows.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            )}
          </div>
        );
      })}
      <FieldMessage id={all.id} message={all.message} />
      {props.fixed ? null : (
        <button
          type="button"
          class="secondary outline compact"
          onClick={() => props.onChange([...props.rows, { key: '', value: '' }])}
        >
          Add {props.label.toLowerCase() === 'condition' ? 'condition' : 'group-by key'}
        </button>
      )}
    </fieldset>
  );
}

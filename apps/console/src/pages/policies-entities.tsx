// The entities a policy applies to (GET .../entities, a page at a time). For a usage-limit policy,
// each one's current usage against the limit as a bar, refreshed every few seconds while shown, and
// the reset of one entity's usage (POST .../entities/{id}/reset) after a confirmation.
import { useEffect, useState } from 'preact/hooks';
import { can } from '../api/me.js';
import { DataTable } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { formatTime } from '../components/format.js';
import { InlineConfirm } from '../components/inline-confirm.js';
import { ListPager } from '../components/list-pager.js';
import { UsageBar } from '../components/usage-bar.js';
import { useApi } from '../components/use-api.js';
import { useConsole } from '../context.js';
import {
  type AnyPolicy,
  isUsagePolicy,
  listEntities,
  type PolicyEntity,
  resetEntity,
} from './policies-api.js';
import { entityGroupKey, type PolicyKind } from './policies-body.js';

export const ENTITIES_PAGE_SIZE = 20;
/** How often the usage column is read again while the page is shown. */
export const USAGE_REFRESH_MS = 5_000;

export function entityLabel(entity: PolicyEntity): string {
  switch (entity.object) {
    case 'workspace':
      return `${entity.name} (${entity.slug})`;
    case 'api-key':
      return `${entity.name} (${entity.type} key)`;
    default:
      return `${[entity.first_name, entity.last_name].filter(Boolean).join(' ')} <${entity.email}>`.trim();
  }
}

const KINDS = { workspace: 'Workspace', 'api-key': 'API key', user: 'User' } as const;

export function PolicyEntities(props: { kind: PolicyKind; policy: AnyPolicy }) {
  const { api, me } = useConsole();
  const [page, setPage] = useState(0);
  const [confirming, setConfirming] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [resetError, setResetError] = useState<Error | undefined>();
  const entities = useApi(
    () => listEntities(api, props.kind, props.policy.id, page, ENTITIES_PAGE_SIZE),
    [api, props.kind, props.policy.id, page],
  );
  const usage = isUsagePolicy(props.policy) ? props.policy : undefined;
  const { reload } = entities;
  useEffect(() => {
    if (!usage) return;
    const timer = setInterval(reload, USAGE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [usage, reload]);
  const groupKeys = props.policy.group_by.map((g) => g.key);
  const mayReset =
    usage !== undefined && usage.status === 'active' && can(me, 'usage_limits_policies.update');

  const reset = async (entity: PolicyEntity) => {
    setResetError(undefined);
    try {
      const done = await resetEntity(api, props.policy.id, entity.id);
      setNotice(`Usage of ${entityLabel(entity)} reset at ${formatTime(done.reset_at)}.`);
      setConfirming(undefined);
      reload();
    } catch (err) {
      setResetError(err instanceof Error ? err : new Error(String(err)));
    }
  };

  return (
    <section>
      <header class="page-header">
        <h3>Applies to</h3>
        <button type="button" class="secondary outline compact" onClick={reload} aria-busy={entities.loading}>
          Refresh
        </button>
      </header>
      <p class="muted">
        The active workspaces, API keys and users the policy's conditions select.
        {usage
          ? ' Usage is what the policy counted for each in the current period; an entity has usage of its own when the policy groups by its key.'
          : ''}
      </p>
      <ErrorBanner error={entities.error ?? resetError} />
      {notice ? (
        <p class="notice" role="status" data-testid="reset-notice">
          {notice}
        </p>
      ) : null}
      <DataTable
        class="striped"
        testId="entities-table"
        columns={['Kind', 'Entity', usage !== undefined && 'Current usage']}
        hiddenColumn={mayReset ? 'Actions' : undefined}
      >
        {(entities.data?.data as PolicyEntity[] | undefined)?.map((entity) => {
          const label = entityLabel(entity);
          const resettable = mayReset && groupKeys.includes(entityGroupKey(entity.object));
          return (
            <tr key={entity.id} data-testid={`entity-${entity.id}`}>
              <td>{KINDS[entity.object]}</td>
              <td>{label}</td>
              {usage ? (
                <td class="usage-cell">
                  <UsageBar
                    usage={'current_usage' in entity ? entity.current_usage : null}
                    limit={usage.credit_limit}
                    type={usage.type}
                    label={`usage of ${label}`}
                  />
                </td>
              ) : null}
              {mayReset ? (
                <td>
                  {resettable ? (
                    <InlineConfirm
                      compact
                      askLabel="Reset usage…"
                      question={`Start ${label}'s usage again from 0?`}
                      confirmLabel="Confirm reset"
                      asking={confirming === entity.id}
                      onAsk={() => {
                        setNotice(undefined);
                        setConfirming(entity.id);
                      }}
                      onConfirm={() => void reset(entity)}
                      onCancel={() => setConfirming(undefined)}
                    />
                  ) : null}
                </td>
              ) : null}
            </tr>
          );
        })}
      </DataTable>
      {entities.data && entities.data.total === 0 ? (
        <p class="muted">No active workspace, key or user matches the conditions.</p>
      ) : null}
      <ListPager
        page={page}
        pageSize={ENTITIES_PAGE_SIZE}
        total={entities.data?.total}
        onPage={setPage}
        label="entities"
      />
    </section>
  );
}

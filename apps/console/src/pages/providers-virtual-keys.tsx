// Virtual keys (the legacy API): the same records as providers seen through the old shape
// (GET /virtual-keys), with the key masked as the API returns it and the fields taken from secret
// references; edit (virtual-keys-dialog.tsx) and delete, which removes the provider too.
import { useState } from 'preact/hooks';
import { unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { formatTime } from '../components/format.js';
import { ListPager } from '../components/list-pager.js';
import { ListTable, RowActions } from '../components/list-table.js';
import { pageQuery } from '../components/paged-filters.js';
import { useApi } from '../components/use-api.js';
import type { WorkspaceName } from '../components/workspace-names.js';
import { useConsole } from '../context.js';
import { type VirtualKey, VirtualKeyDialog } from './virtual-keys-dialog.js';

const PAGE_SIZE = 25;

export function VirtualKeysList(props: { workspace: string; workspaceName: WorkspaceName }) {
  const { api, me } = useConsole();
  const [page, setPage] = useState(0);
  const [deleting, setDeleting] = useState<{ id: string; name: string } | undefined>();
  const [editing, setEditing] = useState<VirtualKey | undefined>();
  const list = useApi(
    async () =>
      unwrap(
        await api.GET('/virtual-keys', {
          params: {
            query: pageQuery(PAGE_SIZE, page, { workspace_id: props.workspace }),
          },
        }),
      ),
    [page, props.workspace],
  );
  const rows = list.data?.data ?? [];
  return (
    <section data-testid="virtual-keys">
      <p class="muted">
        The legacy view of the same records (<code>x-service-virtual-key: slug</code>): a virtual key made
        from an integration takes its credentials from it; one created through the legacy API holds its own,
        shown masked.
      </p>
      <ListTable
        testId="virtual-keys-table"
        columns={['Name', 'Slug', 'Provider', 'Workspace', 'Key', 'Secret mappings', 'Status', 'Created']}
        hiddenColumn="Actions"
        loading={list.loading}
        error={list.error}
        rows={list.data?.data}
        empty="No virtual key."
        pager={<ListPager page={page} pageSize={PAGE_SIZE} total={list.data?.total} onPage={setPage} />}
      >
        {rows.map((v) => (
          <tr key={v.id} data-testid={`virtual-key-${v.slug}`}>
            <td>{v.name}</td>
            <td>
              <code>{v.slug}</code>
            </td>
            <td>{v.provider}</td>
            <td>{props.workspaceName(v.workspace_id)}</td>
            <td>
              {v.key ? (
                <code>{v.key}</code>
              ) : (
                <span class="muted">{v.integration_id ? 'from its integration' : 'none'}</span>
              )}
            </td>
            <td data-testid="virtual-key-mappings">
              {v.integration_id ? (
                <span class="muted">from its integration</span>
              ) : v.secret_mappings.length ? (
                v.secret_mappings.map((m) => (
                  <div key={m.field}>
                    <code>{m.field}</code>
                    {m.key ? (
                      <>
                        {' '}
                        (key <code>{m.key}</code>)
                      </>
                    ) : null}
                  </div>
                ))
              ) : (
                <span class="muted">none</span>
              )}
              {v.secrets?.error ? <div class="field-error">{v.secrets.error}</div> : null}
            </td>
            <td>{v.status}</td>
            <td>{formatTime(v.created_at)}</td>
            <RowActions
              name={v.name}
              onEdit={can(me, 'virtual_keys.update') ? () => setEditing(v) : undefined}
              onDelete={
                can(me, 'virtual_keys.delete') ? () => setDeleting({ id: v.id, name: v.name }) : undefined
              }
            />
          </tr>
        ))}
      </ListTable>
      {editing ? (
        <VirtualKeyDialog
          existing={editing}
          onClose={(changed) => {
            setEditing(undefined);
            if (changed) list.reload();
          }}
        />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete virtual key "${deleting.name}"?`}
          confirmLabel="Delete"
          danger
          onCancel={() => setDeleting(undefined)}
          onConfirm={async () => {
            unwrap(
              await api.DELETE('/virtual-keys/{virtualKeyId}', {
                params: { path: { virtualKeyId: deleting.id } },
              }),
            );
            setDeleting(undefined);
            list.reload();
          }}
        >
          <p>The record is removed (it disappears from the providers too); gateways refuse it at once.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

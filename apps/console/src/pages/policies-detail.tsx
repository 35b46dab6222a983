// One policy: what it limits and where, its settings (editable by a caller with the update scope:
// PUT answers {}, so the policy is read back), archiving (DELETE), and the entities it applies to.
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { can } from '../api/me.js';
import { ErrorBanner } from '../components/error-banner.js';
import { formatTime } from '../components/format.js';
import { InlineConfirm } from '../components/inline-confirm.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
import { useWorkspaceNames } from '../components/workspace-names.js';
import { useConsole } from '../context.js';
import { archivePolicy, getPolicy, policyScope, updatePolicy } from './policies-api.js';
import { draftOf, type PolicyKind, updateBody } from './policies-body.js';
import { Conditions, GroupBy, limitText } from './policies-describe.js';
import { PolicyEntities } from './policies-entities.js';
import { PolicyForm } from './policies-form.js';
import { policiesHref } from './policies-href.js';

export function PolicyDetail(props: { kind: PolicyKind; id: string }) {
  const { api, me } = useConsole();
  const workspaceName = useWorkspaceNames();
  const policy = useApi(() => getPolicy(api, props.kind, props.id), [api, props.kind, props.id]);
  const [saved, setSaved] = useState<string | undefined>();
  const [confirmArchive, setConfirmArchive] = useState(false);
  const [archiveError, setArchiveError] = useState<Error | undefined>();
  const p = policy.data;
  const canUpdate = can(me, policyScope(props.kind, 'update'));
  return (
    <Page
      title={p ? `Policy: ${p.name}` : 'Policy'}
      actions={
        <Link href={policiesHref(props.kind)} role="button" class="secondary outline">
          All policies
        </Link>
      }
    >
      <ErrorBanner error={policy.error} />
      {p ? (
        <>
          <table class="dense policy-summary" data-testid="policy-summary">
            <tbody>
              <tr>
                <th scope="row">Limit</th>
                <td data-testid="policy-limit">{limitText(p)}</td>
              </tr>
              <tr>
                <th scope="row">Conditions</th>
                <td>
                  <Conditions policy={p} workspaceName={workspaceName} />
                </td>
              </tr>
              <tr>
                <th scope="row">Group by</th>
                <td>
                  <GroupBy policy={p} />
                </td>
              </tr>
              <tr>
                <th scope="row">Applies to</th>
                <td>{p.workspace_id === null ? 'the organisation' : workspaceName(p.workspace_id)}</td>
              </tr>
              <tr>
                <th scope="row">Status</th>
                <td>
                  {p.status} · updated {formatTime(p.last_updated_at)}
                </td>
              </tr>
            </tbody>
          </table>
          <PolicyEntities kind={props.kind} policy={p} />
          <details open={false}>
            <summary>{canUpdate ? 'Edit settings' : 'Settings'}</summary>
            <PolicyForm
              key={p.last_updated_at}
              initial={draftOf(props.kind, p)}
              mode="edit"
              readOnly={!canUpdate}
              submitLabel="Save changes"
              onSubmit={async (draft) => {
                setSaved(undefined);
                await updatePolicy(api, props.kind, p.id, updateBody(draft));
                setSaved('Saved.');
                policy.reload();
              }}
            />
            {saved ? (
              <p class="notice" role="status">
                {saved}
              </p>
            ) : null}
          </details>
          {p.status === 'active' && can(me, policyScope(props.kind, 'delete')) ? (
            <div class="form-actions">
              <InlineConfirm
                askLabel="Archive…"
                question="Archive this policy? Gateways stop enforcing it; it cannot be restored."
                confirmLabel="Archive"
                asking={confirmArchive}
                onAsk={() => setConfirmArchive(true)}
                onConfirm={async () => {
                  try {
                    await archivePolicy(api, props.kind, p.id);
                    setConfirmArchive(false);
                    policy.reload();
                  } catch (err) {
                    setArchiveError(err instanceof Error ? err : new Error(String(err)));
                  }
                }}
                onCancel={() => setConfirmArchive(false)}
              />
              <ErrorBanner error={archiveError} />
            </div>
          ) : null}
        </>
      ) : null}
    </Page>
  );
}

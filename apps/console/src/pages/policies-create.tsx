// A new policy of one kind: the form, POST /policies/usage-limits or /rate-limits, then its page.
import { Link, useLocation } from 'wouter-preact';
import { Page } from '../components/page.js';
import { useConsole } from '../context.js';
import { createPolicy } from './policies-api.js';
import { createBody, emptyDraft, type PolicyKind } from './policies-body.js';
import { PolicyForm } from './policies-form.js';
import { policiesHref } from './policies-href.js';

export function PolicyCreate(props: { kind: PolicyKind }) {
  const { api, me } = useConsole();
  // A workspace caller's policies are its workspace's: its condition is filled in.
  const initial = emptyDraft(props.kind);
  if (me.workspace) initial.conditions = [{ key: 'workspace_id', value: me.workspace.id }];
  const [, navigate] = useLocation();
  return (
    <Page
      title={`New ${props.kind === 'usage' ? 'usage-limit' : 'rate-limit'} policy`}
      actions={
        <Link href={policiesHref(props.kind)} role="button" class="secondary outline">
          All policies
        </Link>
      }
    >
      <PolicyForm
        key={props.kind}
        initial={initial}
        mode="create"
        submitLabel="Create policy"
        onSubmit={async (draft) => {
          const created = await createPolicy(api, props.kind, createBody(draft));
          navigate(policiesHref(props.kind, { id: created.id }));
        }}
      />
    </Page>
  );
}

// Guardrails: named check sets with their actions, referenced from configs by id or slug. Workspace
// guardrails belong to one workspace; organisation-level ones (no workspace) serve every workspace
// and only organisation-level callers change them. Webhook header values are sealed on every write
// (guardrails.headers.ts): `checks` given replaces them with the checks, `checks` omitted keeps them.
import { randomUUID } from 'node:crypto';
import { conflict, invalid } from '../api-errors.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { storedForMasks } from '../integrations/masked-values.js';
import { creatorOf } from '../providers/providers.repository.js';
import { actionsSchema, definitionProblem, type GuardrailDefinition } from './guardrails.checks.js';
import { definitionOf, guardrailToApi } from './guardrails.entity.js';
import {
  type SealedHeaderColumns,
  type StoredCheckHeaders,
  sealCheckHeaders,
  storedGuardrailHeaders,
} from './guardrails.headers.js';
import {
  assertWritable,
  deleteGuardrail,
  findVisibleGuardrail,
  insertGuardrail,
  listGuardrails,
  updateGuardrail,
} from './guardrails.repository.js';
import {
  createGuardrailBody,
  guardrailListSchema,
  guardrailLookupQuery,
  guardrailParams,
  guardrailSchema,
  listGuardrailsQuery,
  updateGuardrailBody,
} from './guardrails.schema.js';

const TAG = 'Guardrails';

function checkDefinition(definition: GuardrailDefinition): GuardrailDefinition {
  const problem = definitionProblem(definition);
  if (problem) throw invalid(problem.message, problem.param);
  return definition;
}

/**
 * The definition column with header values taken out, and the sealed header columns; on update,
 * `stored` makes masked values sent back keep the stored ones.
 */
function sealedDefinition(
  masterKey: Buffer | null,
  id: string,
  definition: GuardrailDefinition,
  stored?: StoredCheckHeaders,
): SealedHeaderColumns & { definition: string } {
  const sealed = sealCheckHeaders(masterKey, id, definition.checks, stored);
  return { definition: JSON.stringify({ ...definition, checks: sealed.checks }), ...sealed.columns };
}

export const guardrailRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/guardrails',
    tag: TAG,
    summary: 'Create a guardrail',
    scope: 'guardrails.create',
    level: 'workspace',
    minRole: 'manager',
    body: createGuardrailBody,
    response: guardrailSchema,
    status: 201,
    audit: { action: 'guardrails.create', resourceType: 'guardrail' },
    entity: { table: 'guardrails' },
    async handler({ db, principal, body, mutate, masterKey }) {
      const workspace =
        body.workspace_id === undefined && principal.workspaceId === null
          ? null
          : await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace?.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const definition = checkDefinition({
        checks: body.checks,
        actions: body.actions ?? actionsSchema.parse({}),
        async: body.async ?? false,
      });
      const id = randomUUID();
      const columns = sealedDefinition(masterKey, id, definition);
      return mutate({ resourceId: id, workspaceId: workspace?.id ?? null }, async (tx) => {
        const row = await insertGuardrail(
          tx,
          {
            id,
            organisation_id: principal.organisationId,
            workspace_id: workspace?.id ?? null,
            name: body.name,
            ...columns,
            ...creatorOf(principal),
          },
          body.slug,
        );
        return guardrailToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/guardrails',
    tag: TAG,
    summary: 'List guardrails',
    scope: 'guardrails.list',
    level: 'workspace',
    query: listGuardrailsQuery,
    response: guardrailListSchema,
    async handler({ db, principal, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listGuardrails(db, principal, {
        page_size: query.page_size,
        current_page: query.current_page,
        status: query.status,
        ...(workspaceId !== undefined ? { workspaceId } : {}),
        ...(query.name !== undefined ? { name: query.name } : {}),
      });
      return toList(rows.map(guardrailToApi), total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/guardrails/:guardrailId',
    tag: TAG,
    summary: 'Get a guardrail',
    scope: 'guardrails.read',
    level: 'workspace',
    params: guardrailParams,
    query: guardrailLookupQuery,
    response: guardrailSchema,
    entity: { table: 'guardrails' },
    async handler({ db, principal, params, query }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      return guardrailToApi(await findVisibleGuardrail(db, principal, params.guardrailId, { workspaceId }));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/guardrails/:guardrailId',
    tag: TAG,
    summary: 'Update a guardrail',
    scope: 'guardrails.update',
    level: 'workspace',
    minRole: 'manager',
    params: guardrailParams,
    query: guardrailLookupQuery,
    body: updateGuardrailBody,
    response: guardrailSchema,
    audit: { action: 'guardrails.update', resourceType: 'guardrail' },
    entity: { table: 'guardrails' },
    async handler({ db, principal, params, query, body, mutate, masterKey }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisibleGuardrail(db, principal, params.guardrailId, { workspaceId });
      assertWritable(principal, before);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisibleGuardrail(tx.db, principal, before.id, { forUpdate: true });
        const stored = definitionOf(current);
        const definition =
          body.checks !== undefined || body.actions !== undefined || body.async !== undefined
            ? checkDefinition({
                checks: body.checks ?? stored.checks,
                actions: body.actions ?? stored.actions,
                async: body.async ?? stored.async,
              })
            : undefined;
        // New checks bring their own headers (sealed again, or none); kept checks keep the envelope.
        // A header value sent back masked keeps the one stored at the same check index and name
        // (read under the row lock; without MASTER_KEY headers are refused when sealed anyway).
        const kept =
          body.checks !== undefined && masterKey !== null
            ? {
                headers: storedForMasks(
                  body.checks,
                  () => storedGuardrailHeaders(masterKey, current, stored.checks),
                  {},
                ),
                param: 'body.checks',
              }
            : undefined;
        const columns =
          definition === undefined
            ? {}
            : body.checks !== undefined
              ? sealedDefinition(masterKey, current.id, definition, kept)
              : { definition: JSON.stringify(definition) };
        const row = await updateGuardrail(tx, current, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.slug !== undefined ? { slug: body.slug } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
          ...columns,
        });
        return guardrailToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/guardrails/:guardrailId',
    tag: TAG,
    summary: 'Delete a guardrail',
    scope: 'guardrails.delete',
    level: 'workspace',
    minRole: 'manager',
    params: guardrailParams,
    query: guardrailLookupQuery,
    response: emptyObject,
    audit: { action: 'guardrails.delete', resourceType: 'guardrail' },
    entity: { table: 'guardrails' },
    async handler({ db, principal, params, query, mutate }) {
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisibleGuardrail(db, principal, params.guardrailId, { workspaceId });
      assertWritable(principal, before);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        await deleteGuardrail(
          tx,
          await findVisibleGuardrail(tx.db, principal, before.id, { forUpdate: true }),
        );
        return {};
      });
    },
  }),
];

// Labels (spec 1): named pointers such as `production` or `staging` that a workspace defines once and
// points at versions of its prompts and partials (`PUT /prompts/{id}/labels/{label}`). A label's name
// is how requests address it (`slug@production`), so it never changes; a label still pointing at a
// version cannot be deleted (409). Same view and edit rules as prompts.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict, invalid, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid, lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { pageBounds, toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { creatorOf } from '../providers/providers.repository.js';
import { type LabelRow, promptDb } from './prompts.db.js';
import { requirePromptAccess } from './prompts.permissions.js';
import {
  createLabelBody,
  labelListSchema,
  labelParams,
  labelSchema,
  listLabelsQuery,
  lookupQuery,
  updateLabelBody,
} from './prompts.schema.js';

const TAG = 'Labels';

function labelToApi(row: LabelRow) {
  return {
    id: row.id,
    object: 'label' as const,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    name: row.name,
    description: row.description,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

async function findLabel(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  ref: string,
  workspaceId: string | undefined,
  forUpdate = false,
): Promise<LabelRow> {
  let query = promptDb(db)
    .selectFrom('prompt_labels')
    .selectAll()
    .where('organisation_id', '=', principal.organisationId);
  if (principal.workspaceId !== null) query = query.where('workspace_id', '=', principal.workspaceId);
  if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
  query = isUuid(ref) ? query.where('id', '=', ref.toLowerCase()) : query.where('name', '=', ref);
  if (forUpdate) query = query.forUpdate();
  const rows = await query.limit(2).execute();
  if (rows.length > 1) {
    throw invalid(
      `several labels are named "${ref}": name their workspace in workspace_id`,
      'query.workspace_id',
    );
  }
  if (!rows[0]) throw notFound('label');
  return rows[0];
}

export const labelRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/labels',
    tag: TAG,
    summary: 'Create a label',
    scope: 'labels.create',
    level: 'workspace',
    body: createLabelBody,
    response: labelSchema,
    status: 201,
    audit: { action: 'labels.create', resourceType: 'label' },
    async handler({ db, principal, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        const row = await promptDb(tx.db)
          .insertInto('prompt_labels')
          .values({
            id,
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            name: body.name,
            description: body.description ?? null,
            ...creatorOf(principal),
          })
          .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row) throw conflict(`a label named "${body.name}" already exists in the workspace`, 'body.name');
        return labelToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/labels',
    tag: TAG,
    summary: 'List labels',
    scope: 'labels.list',
    level: 'workspace',
    query: listLabelsQuery,
    response: labelListSchema,
    async handler({ db, principal, query }) {
      await requirePromptAccess(db, principal, 'view');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      let base = promptDb(db)
        .selectFrom('prompt_labels')
        .where('organisation_id', '=', principal.organisationId);
      if (principal.workspaceId !== null) base = base.where('workspace_id', '=', principal.workspaceId);
      if (workspaceId !== undefined) base = base.where('workspace_id', '=', workspaceId);
      const { limit, offset } = pageBounds(query);
      const page = await readPage(db, base, (q) =>
        q.selectAll().orderBy('name').orderBy('id').limit(limit).offset(offset),
      );
      return toList(page.rows.map(labelToApi), page.total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/labels/:labelId',
    tag: TAG,
    summary: 'Get a label',
    scope: 'labels.read',
    level: 'workspace',
    params: labelParams,
    query: lookupQuery,
    response: labelSchema,
    async handler({ db, principal, params, query }) {
      await requirePromptAccess(db, principal, 'view');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      return labelToApi(await findLabel(db, principal, params.labelId, workspaceId));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/labels/:labelId',
    tag: TAG,
    summary: 'Update a label',
    scope: 'labels.update',
    level: 'workspace',
    params: labelParams,
    query: lookupQuery,
    body: updateLabelBody,
    response: labelSchema,
    audit: { action: 'labels.update', resourceType: 'label' },
    entity: { exempt: 'labels have no version' },
    async handler({ db, principal, params, query, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findLabel(db, principal, params.labelId, workspaceId);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const row = await promptDb(tx.db)
          .updateTable('prompt_labels')
          .set({ description: body.description, updated_at: new Date() })
          .where('id', '=', before.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return labelToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/labels/:labelId',
    tag: TAG,
    summary: 'Delete a label',
    scope: 'labels.delete',
    level: 'workspace',
    params: labelParams,
    query: lookupQuery,
    response: emptyObject,
    audit: { action: 'labels.delete', resourceType: 'label' },
    entity: { exempt: 'labels have no version' },
    async handler({ db, principal, params, query, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findLabel(db, principal, params.labelId, workspaceId);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        await findLabel(tx.db, principal, before.id, undefined, true);
        const used = await promptDb(tx.db)
          .selectFrom('prompt_version_labels')
          .select('prompt_id')
          .where('label_id', '=', before.id)
          .executeTakeFirst();
        if (used)
          throw conflict(
            `the label "${before.name}" still points at a version: remove it from its prompts first`,
          );
        await promptDb(tx.db).deleteFrom('prompt_labels').where('id', '=', before.id).execute();
        return {};
      });
    },
  }),
];

// Collections (spec 1, "Prompt collections" and "Collections"): nestable folders of prompts within a
// workspace. Gateways never need them, so no change events; writes are audited. Same view and edit
// rules as prompts (prompts.permissions.ts).
import { randomUUID } from 'node:crypto';
import { conflict } from '../api-errors.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import { creatorOf } from '../providers/providers.repository.js';
import {
  assertEmpty,
  checkParent,
  collectionToApi,
  findCollection,
  freeCollectionSlug,
  listCollections,
} from './collections.repository.js';
import { promptDb } from './prompts.db.js';
import { requirePromptAccess } from './prompts.permissions.js';
import {
  collectionListSchema,
  collectionParams,
  collectionSchema,
  createCollectionBody,
  listCollectionsQuery,
  lookupQuery,
  updateCollectionBody,
} from './prompts.schema.js';

const TAG = 'Collections';

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

export const collectionRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/collections',
    tag: TAG,
    summary: 'Create a collection',
    scope: 'collections.create',
    level: 'workspace',
    body: createCollectionBody,
    response: collectionSchema,
    status: 201,
    audit: { action: 'collections.create', resourceType: 'collection' },
    async handler({ db, principal, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const parent =
        body.parent_collection_id === undefined
          ? undefined
          : await findCollection(db, principal, body.parent_collection_id, {
              workspaceId: workspace.id,
              missing: 'reference',
            });
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        if (parent) await checkParent(tx.db, id, parent.id);
        const slug = body.slug ?? (await freeCollectionSlug(tx.db, workspace.id, body.name));
        try {
          const row = await promptDb(tx.db)
            .insertInto('prompt_collections')
            .values({
              id,
              organisation_id: workspace.organisation_id,
              workspace_id: workspace.id,
              parent_id: parent?.id ?? null,
              name: body.name,
              slug,
              ...creatorOf(principal),
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          return collectionToApi(row);
        } catch (err) {
          if (isUniqueViolation(err))
            throw conflict(`a collection with slug "${slug}" already exists`, 'body.slug');
          throw err;
        }
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/collections',
    tag: TAG,
    summary: 'List collections',
    scope: 'collections.list',
    level: 'workspace',
    query: listCollectionsQuery,
    response: collectionListSchema,
    async handler({ db, principal, query }) {
      await requirePromptAccess(db, principal, 'view');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const parentId =
        query.parent_collection_id === undefined
          ? undefined
          : (await findCollection(db, principal, query.parent_collection_id, { workspaceId })).id;
      const { rows, total } = await listCollections(db, principal, {
        page_size: query.page_size,
        current_page: query.current_page,
        workspaceId,
        parentId,
      });
      return toList(rows.map(collectionToApi), total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/collections/:collectionId',
    tag: TAG,
    summary: 'Get a collection',
    scope: 'collections.read',
    level: 'workspace',
    params: collectionParams,
    query: lookupQuery,
    response: collectionSchema,
    async handler({ db, principal, params, query }) {
      await requirePromptAccess(db, principal, 'view');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      return collectionToApi(await findCollection(db, principal, params.collectionId, { workspaceId }));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/collections/:collectionId',
    tag: TAG,
    summary: 'Update a collection',
    scope: 'collections.update',
    level: 'workspace',
    params: collectionParams,
    query: lookupQuery,
    body: updateCollectionBody,
    response: collectionSchema,
    audit: { action: 'collections.update', resourceType: 'collection' },
    entity: { exempt: 'collections have no version' },
    async handler({ db, principal, params, query, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findCollection(db, principal, params.collectionId, { workspaceId });
      const parent =
        body.parent_collection_id === undefined || body.parent_collection_id === null
          ? body.parent_collection_id
          : (
              await findCollection(db, principal, body.parent_collection_id, {
                workspaceId: before.workspace_id,
                missing: 'reference',
              })
            ).id;
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        await findCollection(tx.db, principal, before.id, { forUpdate: true });
        if (typeof parent === 'string') await checkParent(tx.db, before.id, parent);
        const row = await promptDb(tx.db)
          .updateTable('prompt_collections')
          .set({
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(parent !== undefined ? { parent_id: parent } : {}),
            updated_at: new Date(),
          })
          .where('id', '=', before.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return collectionToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/collections/:collectionId',
    tag: TAG,
    summary: 'Delete a collection',
    scope: 'collections.delete',
    level: 'workspace',
    params: collectionParams,
    query: lookupQuery,
    response: emptyObject,
    audit: { action: 'collections.delete', resourceType: 'collection' },
    entity: { exempt: 'collections have no version' },
    async handler({ db, principal, params, query, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findCollection(db, principal, params.collectionId, { workspaceId });
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        await findCollection(tx.db, principal, before.id, { forUpdate: true });
        await assertEmpty(tx.db, before.id);
        await promptDb(tx.db).deleteFrom('prompt_collections').where('id', '=', before.id).execute();
        return {};
      });
    },
  }),
];

// Prompt partials: reusable Mustache pieces prompts include by slug (`{{> tone}}`), versioned like
// prompts and served at their published version. A partial that would include itself, directly or
// through others, is refused when saved or published (400).
import { randomUUID } from 'node:crypto';
import { conflict, invalid } from '../api-errors.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import { toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { creatorOf } from '../providers/providers.repository.js';
import { labelsOf, promptSummaryToApi, promptToApi } from './prompts.entity.js';
import { requirePromptAccess } from './prompts.permissions.js';
import {
  appendVersion,
  findVisiblePrompt,
  insertPrompt,
  listPrompts,
  patchLatestVersion,
  touchPrompt,
} from './prompts.repository.js';
import {
  createPartialBody,
  listPartialsQuery,
  lookupQuery,
  partialListSchema,
  partialSchema,
  promptParams,
  updatePartialBody,
} from './prompts.schema.js';
import { checkTemplate } from './prompts.templates.js';
import { versionedRoutes } from './prompts.versioned.js';

const TAG = 'Prompt partials';

export const promptPartialRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/prompt-partials',
    tag: TAG,
    summary: 'Create a prompt partial',
    scope: 'prompt_partials.create',
    level: 'workspace',
    body: createPartialBody,
    response: partialSchema,
    status: 201,
    audit: { action: 'prompt_partials.create', resourceType: 'prompt_partial' },
    entity: { table: 'prompts' },
    async handler({ db, principal, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        const row = await insertPrompt(
          tx,
          {
            id,
            kind: 'partial',
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            collection_id: null,
            name: body.name,
            slug: body.slug,
          },
          body,
          creatorOf(principal),
        );
        // Checked once the slug is known (it may be derived): a failure rolls the insert back.
        await checkTemplate(tx.db, workspace.id, body.string, row.slug);
        return promptToApi(tx.db, row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/prompt-partials',
    tag: TAG,
    summary: 'List prompt partials',
    scope: 'prompt_partials.list',
    level: 'workspace',
    query: listPartialsQuery,
    response: partialListSchema,
    async handler({ db, principal, query }) {
      await requirePromptAccess(db, principal, 'view');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const { rows, total } = await listPrompts(db, principal, 'partial', {
        page_size: query.page_size,
        current_page: query.current_page,
        status: query.status,
        workspaceId,
        name: query.name,
      });
      const labels = await labelsOf(
        db,
        rows.map((r) => r.id),
      );
      return toList(
        rows.map((r) => promptSummaryToApi(r, labels.get(r.id) ?? {})),
        total,
      );
    },
  }),
  defineRoute({
    method: 'put',
    path: '/prompt-partials/:promptId',
    tag: TAG,
    summary: 'Update a prompt partial',
    scope: 'prompt_partials.update',
    level: 'workspace',
    params: promptParams,
    query: lookupQuery,
    body: updatePartialBody,
    response: partialSchema,
    audit: { action: 'prompt_partials.update', resourceType: 'prompt_partial' },
    entity: { table: 'prompts' },
    async handler({ db, principal, params, query, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisiblePrompt(db, principal, 'partial', params.promptId, { workspaceId });
      const versioned = body.string !== undefined || body.version_description !== undefined;
      if (versioned && !body.patch && body.string === undefined) {
        throw invalid(
          'body.string: a new version needs its text (send patch: true to change the latest version in place)',
          'body.string',
        );
      }
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisiblePrompt(tx.db, principal, 'partial', before.id, { forUpdate: true });
        if (body.string !== undefined)
          await checkTemplate(tx.db, current.workspace_id, body.string, current.slug);
        const fields = {
          ...(body.string !== undefined ? { string: body.string } : {}),
          ...(body.version_description !== undefined
            ? { version_description: body.version_description }
            : {}),
        };
        let latest: number | undefined;
        if (versioned && body.patch) await patchLatestVersion(tx, current, fields);
        else if (versioned) {
          latest = await appendVersion(
            tx,
            current,
            { ...fields, string: body.string as string },
            creatorOf(principal),
          );
        }
        const row = await touchPrompt(tx, current, {
          name: body.name,
          status: body.status,
          ...(latest !== undefined ? { latest_version: latest } : {}),
        });
        return promptToApi(tx.db, row);
      });
    },
  }),
  ...versionedRoutes('partial'),
];

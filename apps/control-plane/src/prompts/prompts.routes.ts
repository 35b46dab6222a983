// Saved prompts (spec 1 and 4.5): workspace-level Mustache templates with immutable versions
// (`PUT` appends one unless `patch: true`), a published version, labels and collections, and
// render. Workspace settings (spec 2.6) decide who may view and edit (prompts.permissions.ts).
// The routes shared with partials (get, versions, publish, labels, delete) are prompts.versioned.ts.
import { randomUUID } from 'node:crypto';
import { promptRequestBody, TemplateError } from '@aigw/prompt-template';
import type { Kysely } from 'kysely';
import { conflict, invalid, referenceNotFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { lookupWorkspace, targetWorkspace } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { creatorOf } from '../providers/providers.repository.js';
import { findCollection } from './collections.repository.js';
import { labelsOf, promptSummaryToApi, promptToApi } from './prompts.entity.js';
import { requirePromptAccess } from './prompts.permissions.js';
import {
  appendVersion,
  findVersion,
  findVisiblePrompt,
  insertPrompt,
  listPrompts,
  patchLatestVersion,
  touchPrompt,
  type VersionFields,
} from './prompts.repository.js';
import { parsePromptRef, selectedVersion } from './prompts.resolve.js';
import {
  createPromptBody,
  listPromptsQuery,
  lookupQuery,
  promptListSchema,
  promptParams,
  promptRefParams,
  promptSchema,
  renderBody,
  renderSchema,
  updatePromptBody,
} from './prompts.schema.js';
import { checkTemplate, publishedPartials } from './prompts.templates.js';
import { versionedRoutes } from './prompts.versioned.js';

const TAG = 'Prompts';
type Db = Kysely<ControlDatabase>;

/** A `@slug` provider must exist in the workspace (a provider name is checked by the gateway). */
async function checkProvider(db: Db, workspaceId: string, provider: string | undefined): Promise<void> {
  if (provider === undefined || !provider.startsWith('@')) return;
  const found = await db
    .selectFrom('providers')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', provider.slice(1))
    .executeTakeFirst();
  if (!found) throw referenceNotFound(`no provider ${provider} in the workspace`, 'body.provider');
}

async function collectionIdOf(
  db: Db,
  principal: Principal,
  workspaceId: string,
  ref: string | null | undefined,
): Promise<string | null | undefined> {
  if (ref === undefined || ref === null) return ref;
  return (await findCollection(db, principal, ref, { workspaceId, missing: 'reference' })).id;
}

const VERSION_FIELDS = [
  'string',
  'model',
  'provider',
  'parameters',
  'variables',
  'metadata',
  'version_description',
] as const;

function versionFields(body: Record<string, unknown>): VersionFields | undefined {
  const given = VERSION_FIELDS.filter((k) => body[k] !== undefined);
  if (given.length === 0) return undefined;
  return Object.fromEntries(given.map((k) => [k, body[k]])) as VersionFields;
}

export const promptRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/prompts',
    tag: TAG,
    summary: 'Create a prompt',
    scope: 'prompts.create',
    level: 'workspace',
    body: createPromptBody,
    response: promptSchema,
    status: 201,
    audit: { action: 'prompts.create', resourceType: 'prompt' },
    entity: { table: 'prompts' },
    async handler({ db, principal, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspace = await targetWorkspace(db, principal, body.workspace_id, 'body.workspace_id');
      if (workspace.status === 'archived') throw conflict('the workspace is archived', 'body.workspace_id');
      const collectionId = await collectionIdOf(db, principal, workspace.id, body.collection_id);
      await checkProvider(db, workspace.id, body.provider);
      const id = randomUUID();
      return mutate({ resourceId: id, workspaceId: workspace.id }, async (tx) => {
        await checkTemplate(tx.db, workspace.id, body.string);
        const row = await insertPrompt(
          tx,
          {
            id,
            kind: 'prompt',
            organisation_id: workspace.organisation_id,
            workspace_id: workspace.id,
            collection_id: collectionId ?? null,
            name: body.name,
            slug: body.slug,
          },
          body,
          creatorOf(principal),
        );
        return promptToApi(tx.db, row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/prompts',
    tag: TAG,
    summary: 'List prompts',
    scope: 'prompts.list',
    level: 'workspace',
    query: listPromptsQuery,
    response: promptListSchema,
    async handler({ db, principal, query }) {
      await requirePromptAccess(db, principal, 'view');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const collectionId =
        query.collection_id === undefined
          ? undefined
          : (await findCollection(db, principal, query.collection_id, { workspaceId })).id;
      const { rows, total } = await listPrompts(db, principal, 'prompt', {
        page_size: query.page_size,
        current_page: query.current_page,
        status: query.status,
        workspaceId,
        collectionId,
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
    path: '/prompts/:promptId',
    tag: TAG,
    summary: 'Update a prompt',
    scope: 'prompts.update',
    level: 'workspace',
    params: promptParams,
    query: lookupQuery,
    body: updatePromptBody,
    response: promptSchema,
    audit: { action: 'prompts.update', resourceType: 'prompt' },
    entity: { table: 'prompts' },
    async handler({ db, principal, params, query, body, mutate }) {
      await requirePromptAccess(db, principal, 'write');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const before = await findVisiblePrompt(db, principal, 'prompt', params.promptId, { workspaceId });
      const fields = versionFields(body);
      if (fields && !body.patch && fields.string === undefined) {
        throw invalid(
          'body.string: a new version needs its template (send patch: true to change the latest version in place)',
          'body.string',
        );
      }
      const collectionId = await collectionIdOf(db, principal, before.workspace_id, body.collection_id);
      await checkProvider(db, before.workspace_id, fields?.provider);
      return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
        const current = await findVisiblePrompt(tx.db, principal, 'prompt', before.id, { forUpdate: true });
        let latest: number | undefined;
        if (fields?.string !== undefined) await checkTemplate(tx.db, current.workspace_id, fields.string);
        if (fields && body.patch) await patchLatestVersion(tx, current, fields);
        else if (fields) {
          latest = await appendVersion(
            tx,
            current,
            { ...fields, string: fields.string as string },
            creatorOf(principal),
          );
        }
        const row = await touchPrompt(tx, current, {
          name: body.name,
          status: body.status,
          collection_id: collectionId,
          ...(latest !== undefined ? { latest_version: latest } : {}),
        });
        return promptToApi(tx.db, row);
      });
    },
  }),
  ...versionedRoutes('prompt'),
  defineRoute({
    method: 'post',
    path: '/prompts/:promptId/render',
    tag: TAG,
    summary: 'Render a prompt',
    scope: 'prompts.render',
    level: 'workspace',
    params: promptRefParams,
    query: lookupQuery,
    body: renderBody,
    response: renderSchema,
    async handler({ db, principal, params, query, body }) {
      await requirePromptAccess(db, principal, 'view');
      const workspaceId = await lookupWorkspace(db, principal, query.workspace_id);
      const ref = parsePromptRef(params.promptId);
      const prompt = await findVisiblePrompt(db, principal, 'prompt', ref.prompt, { workspaceId });
      const labels = (await labelsOf(db, [prompt.id])).get(prompt.id) ?? {};
      const version = await findVersion(db, prompt.id, selectedVersion(ref, prompt.default_version, labels));
      const partials = await publishedPartials(db, prompt.workspace_id);
      const { variables, ...overrides } = body;
      try {
        const data = promptRequestBody(
          {
            template: version.template,
            model: version.model ?? undefined,
            parameters: version.parameters,
            defaults: version.variables,
          },
          variables,
          overrides,
          (name) => partials.get(name),
        );
        return {
          object: 'prompt_render' as const,
          prompt_id: prompt.id,
          version: version.version,
          label: ref.label ?? null,
          data,
        };
      } catch (err) {
        if (err instanceof TemplateError) {
          const param =
            err.code === 'missing_variables'
              ? 'body.variables'
              : err.code === 'invalid_override'
                ? 'body.messages'
                : 'path.promptId';
          throw invalid(`${param}: ${err.message}`, param);
        }
        throw err;
      }
    },
  }),
];

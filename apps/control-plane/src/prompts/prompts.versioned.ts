// The routes prompts and partials share: get, delete, versions, publish (which version is served by
// default) and labels (named, movable pointers to versions). Partials are published only when the
// published text keeps their includes free of loops.
import type { Kysely } from 'kysely';
import { conflict, notFound } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { lookupWorkspace } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteDefinition } from '../http/route.js';
import type { PromptKind } from './prompts.db.js';
import { labelsOf, promptToApi, versionToApi } from './prompts.entity.js';
import { requirePromptAccess } from './prompts.permissions.js';
import {
  deletePrompt,
  findVersion,
  findVisiblePrompt,
  includersOf,
  listVersions,
  removeLabel,
  setLabel,
  touchPrompt,
  workspaceLabel,
} from './prompts.repository.js';
import {
  labelAssignBody,
  listVersionsQuery,
  lookupQuery,
  partialSchema,
  promptLabelParams,
  promptParams,
  promptSchema,
  promptVersionListSchema,
  promptVersionParams,
  promptVersionSchema,
  publishBody,
} from './prompts.schema.js';
import { checkTemplate } from './prompts.templates.js';

interface KindRoutes {
  readonly base: string;
  readonly tag: string;
  readonly noun: string;
  readonly resourceType: string;
  readonly scopes: { read: Scope; delete: Scope; publish: Scope };
  readonly schema: typeof promptSchema | typeof partialSchema;
}

const KINDS: Record<PromptKind, KindRoutes> = {
  prompt: {
    base: '/prompts',
    tag: 'Prompts',
    noun: 'prompt',
    resourceType: 'prompt',
    scopes: { read: 'prompts.read', delete: 'prompts.delete', publish: 'prompts.publish' },
    schema: promptSchema,
  },
  partial: {
    base: '/prompt-partials',
    tag: 'Prompt partials',
    noun: 'prompt partial',
    resourceType: 'prompt_partial',
    scopes: {
      read: 'prompt_partials.read',
      delete: 'prompt_partials.delete',
      publish: 'prompt_partials.update',
    },
    schema: partialSchema,
  },
};

async function visible(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  kind: PromptKind,
  ref: string,
  workspaceRef: string | undefined,
) {
  const workspaceId = await lookupWorkspace(db, principal, workspaceRef);
  return findVisiblePrompt(db, principal, kind, ref, { workspaceId });
}

export function versionedRoutes(kind: PromptKind): RouteDefinition[] {
  const k = KINDS[kind];
  const action = (verb: string) => `${kind === 'prompt' ? 'prompts' : 'prompt_partials'}.${verb}`;
  return [
    defineRoute({
      method: 'get',
      path: `${k.base}/:promptId`,
      tag: k.tag,
      summary: `Get a ${k.noun}`,
      scope: k.scopes.read,
      level: 'workspace',
      params: promptParams,
      query: lookupQuery,
      response: k.schema,
      entity: { table: 'prompts' },
      async handler({ db, principal, params, query }) {
        await requirePromptAccess(db, principal, 'view');
        return promptToApi(db, await visible(db, principal, kind, params.promptId, query.workspace_id));
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${k.base}/:promptId`,
      tag: k.tag,
      summary: `Delete a ${k.noun}`,
      scope: k.scopes.delete,
      level: 'workspace',
      params: promptParams,
      query: lookupQuery,
      response: emptyObject,
      audit: { action: action('delete'), resourceType: k.resourceType },
      entity: { table: 'prompts' },
      async handler({ db, principal, params, query, mutate }) {
        await requirePromptAccess(db, principal, 'write');
        const before = await visible(db, principal, kind, params.promptId, query.workspace_id);
        return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
          const current = await findVisiblePrompt(tx.db, principal, kind, before.id, { forUpdate: true });
          if (kind === 'partial') {
            const users = await includersOf(tx.db, current.workspace_id, current.slug, current.id);
            if (users.length > 0) {
              throw conflict(
                `the partial is included by ${users.join(', ')}: remove it from their versions (or delete them) first`,
              );
            }
          }
          await deletePrompt(tx, current);
          return {};
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: `${k.base}/:promptId/versions`,
      tag: k.tag,
      summary: `List the versions of a ${k.noun}`,
      scope: k.scopes.read,
      level: 'workspace',
      params: promptParams,
      query: listVersionsQuery,
      response: promptVersionListSchema,
      async handler({ db, principal, params, query }) {
        await requirePromptAccess(db, principal, 'view');
        const prompt = await visible(db, principal, kind, params.promptId, query.workspace_id);
        const { rows, total } = await listVersions(db, prompt.id, query);
        const labels = (await labelsOf(db, [prompt.id])).get(prompt.id) ?? {};
        return toList(
          rows.map((r) => versionToApi(r, labels)),
          total,
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: `${k.base}/:promptId/versions/:version`,
      tag: k.tag,
      summary: `Get a version of a ${k.noun}`,
      scope: k.scopes.read,
      level: 'workspace',
      params: promptVersionParams,
      query: lookupQuery,
      response: promptVersionSchema,
      async handler({ db, principal, params, query }) {
        await requirePromptAccess(db, principal, 'view');
        const prompt = await visible(db, principal, kind, params.promptId, query.workspace_id);
        const labels = (await labelsOf(db, [prompt.id])).get(prompt.id) ?? {};
        return versionToApi(await findVersion(db, prompt.id, params.version), labels);
      },
    }),
    defineRoute({
      method: 'put',
      path: `${k.base}/:promptId/makeDefault`,
      tag: k.tag,
      summary: `Publish a version of a ${k.noun}`,
      scope: k.scopes.publish,
      level: 'workspace',
      params: promptParams,
      query: lookupQuery,
      body: publishBody,
      response: k.schema,
      audit: { action: action('publish'), resourceType: k.resourceType },
      entity: { exempt: 'it is an action on the prompt (publishing a version), not a write of the prompt' },
      async handler({ db, principal, params, query, body, mutate }) {
        await requirePromptAccess(db, principal, 'write');
        const before = await visible(db, principal, kind, params.promptId, query.workspace_id);
        return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
          const current = await findVisiblePrompt(tx.db, principal, kind, before.id, { forUpdate: true });
          const version = await findVersion(tx.db, current.id, body.version);
          if (kind === 'partial') {
            await checkTemplate(tx.db, current.workspace_id, version.template, current.slug, 'body.version');
          }
          return promptToApi(tx.db, await touchPrompt(tx, current, { default_version: version.version }));
        });
      },
    }),
    defineRoute({
      method: 'put',
      path: `${k.base}/:promptId/labels/:label`,
      tag: k.tag,
      summary: `Point a label of a ${k.noun} at a version`,
      scope: k.scopes.publish,
      level: 'workspace',
      params: promptLabelParams,
      query: lookupQuery,
      body: labelAssignBody,
      response: k.schema,
      audit: { action: action('label'), resourceType: k.resourceType },
      entity: { exempt: 'it is an action on a label of a version, not a write of the prompt' },
      async handler({ db, principal, params, query, body, mutate }) {
        await requirePromptAccess(db, principal, 'write');
        const before = await visible(db, principal, kind, params.promptId, query.workspace_id);
        const label = await workspaceLabel(db, before.workspace_id, params.label);
        return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
          const current = await findVisiblePrompt(tx.db, principal, kind, before.id, { forUpdate: true });
          await findVersion(tx.db, current.id, body.version);
          await setLabel(tx, current.id, label.id, body.version);
          return promptToApi(tx.db, await touchPrompt(tx, current, {}));
        });
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${k.base}/:promptId/labels/:label`,
      tag: k.tag,
      summary: `Remove a label from a ${k.noun}`,
      scope: k.scopes.publish,
      level: 'workspace',
      params: promptLabelParams,
      query: lookupQuery,
      response: k.schema,
      audit: { action: action('unlabel'), resourceType: k.resourceType },
      entity: { exempt: 'it is an action on a label of a version, not a write of the prompt' },
      async handler({ db, principal, params, query, mutate }) {
        await requirePromptAccess(db, principal, 'write');
        const before = await visible(db, principal, kind, params.promptId, query.workspace_id);
        const label = await workspaceLabel(db, before.workspace_id, params.label);
        return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
          const current = await findVisiblePrompt(tx.db, principal, kind, before.id, { forUpdate: true });
          if (!(await removeLabel(tx, current.id, label.id)))
            throw notFound(`label "${label.name}" on this ${k.noun}`);
          return promptToApi(tx.db, await touchPrompt(tx, current, {}));
        });
      },
    }),
  ];
}

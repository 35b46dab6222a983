// The routes both policy kinds share (spec 4.1): create, list, get, update (200 `{}`), delete
// (archives, 200 `{}`) and the entities a policy is attached to. Each kind supplies its fields.
import { randomUUID } from 'node:crypto';
import type { Entity } from '@aigw/proto';
import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import { type ZodType, z } from 'zod';
import type { ControlDatabase } from '../db/schema.js';
import { listSchema, pageQuery, toList } from '../http/list.js';
import { defineRoute, emptyObject, type RouteContext, type RouteDefinition } from '../http/route.js';
import {
  type PoliciesTable,
  type PolicyCondition,
  type PolicyGroupBy,
  type PolicyKind,
  type PolicyRow,
  policyDb,
} from './policies.db.js';
import { type AttachedEntity, attachedEntities, attachedEntitySchema } from './policies.entities.js';
import {
  findPolicy,
  listPolicies,
  type PolicyFilters,
  resolveConditions,
  resolveOwner,
} from './policies.repository.js';

export interface PolicyCreateBase {
  readonly name: string;
  readonly type: string;
  readonly conditions: PolicyCondition[];
  readonly group_by: PolicyGroupBy[];
  readonly workspace_id?: string | undefined;
  readonly organisation_id?: string | undefined;
}

type KindColumns = Omit<Insertable<PoliciesTable>, 'id' | 'kind' | 'organisation_id' | 'name' | 'type'>;

export interface PolicyFamily<C extends PolicyCreateBase, U extends object, Q extends PolicyFilters> {
  readonly kind: PolicyKind;
  readonly path: string;
  readonly idParam: string;
  readonly tag: string;
  /** Lower-case names for summaries (`rate limits policy`, `rate limits policies`). */
  readonly noun: string;
  readonly plural: string;
  /** The audit resource type (`rate_limits_policy`). */
  readonly resourceType: string;
  readonly scopes: 'rate_limits_policies' | 'usage_limits_policies';
  /** The `object` of the creation response. */
  readonly object: string;
  readonly createBody: ZodType<C>;
  readonly updateBody: ZodType<U>;
  readonly listQuery: ZodType<Q>;
  readonly response: ZodType;
  toApi(row: PolicyRow): unknown;
  entity(row: PolicyRow): Entity;
  insertColumns(body: C): Partial<KindColumns>;
  /** The columns a PUT changes; throws AB01 (naming the field) when the result would be invalid. */
  updateColumns(current: PolicyRow, body: U): Updateable<PoliciesTable>;
  /** Runs in the updating transaction after the write (usage limits: the alert resets of spec part 3). */
  afterUpdate?(db: Kysely<ControlDatabase>, before: PolicyRow, after: PolicyRow): Promise<void>;
  /** What `/entities` shows of each attached entity beyond itself (usage limits: its current usage). */
  readonly attached?: {
    readonly schema: ZodType;
    show(
      ctx: RouteContext<unknown, unknown, unknown>,
      policy: PolicyRow,
      entities: AttachedEntity[],
    ): Promise<unknown[]>;
  };
}

export function policyFamilyRoutes<C extends PolicyCreateBase, U extends object, Q extends PolicyFilters>(
  family: PolicyFamily<C, U, Q>,
): RouteDefinition[] {
  const { kind, path, tag, noun, scopes } = family;
  const itemPath = `${path}/:${family.idParam}`;
  const params = z.object({ [family.idParam]: z.uuid() }) as unknown as ZodType<Record<string, string>>;
  const audit = (action: string) => ({ action: `${scopes}.${action}`, resourceType: family.resourceType });
  const idOf = (p: Record<string, string>) => p[family.idParam] as string;

  return [
    defineRoute({
      method: 'post',
      path,
      tag,
      summary: `Create a ${noun}`,
      scope: `${scopes}.create`,
      level: 'workspace',
      minRole: 'manager',
      body: family.createBody,
      response: z.object({ id: z.uuid(), object: z.literal(family.object) }),
      status: 201,
      audit: audit('create'),
      entity: { table: 'policies' },
      async handler({ db, principal, body, mutate }) {
        const owner = await resolveOwner(db, principal, body);
        const conditions = await resolveConditions(db, principal, owner, body.conditions);
        const id = randomUUID();
        return mutate({ resourceId: id, workspaceId: owner.workspaceId }, async (tx) => {
          const row = await policyDb(tx.db)
            .insertInto('policies')
            .values({
              id,
              kind,
              organisation_id: owner.organisationId,
              workspace_id: owner.workspaceId,
              name: body.name,
              type: body.type,
              conditions: JSON.stringify(conditions),
              group_by: JSON.stringify(body.group_by),
              ...family.insertColumns(body),
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          await tx.change(family.entity(row));
          return { id, object: family.object };
        });
      },
    }),
    defineRoute({
      method: 'get',
      path,
      tag,
      summary: `List ${family.plural}`,
      scope: `${scopes}.list`,
      level: 'workspace',
      query: family.listQuery,
      response: listSchema(family.response),
      async handler({ db, principal, query }) {
        const { rows, total } = await listPolicies(db, principal, kind, query);
        return toList(rows.map(family.toApi), total);
      },
    }),
    defineRoute({
      method: 'get',
      path: itemPath,
      tag,
      summary: `Get a ${noun}`,
      scope: `${scopes}.read`,
      level: 'workspace',
      params,
      response: family.response,
      entity: { table: 'policies' },
      async handler({ db, principal, params }) {
        return family.toApi(await findPolicy(db, principal, kind, idOf(params)));
      },
    }),
    defineRoute({
      method: 'put',
      path: itemPath,
      tag,
      summary: `Update a ${noun}`,
      scope: `${scopes}.update`,
      level: 'workspace',
      minRole: 'manager',
      params,
      body: family.updateBody,
      response: emptyObject,
      audit: audit('update'),
      entity: { table: 'policies' },
      async handler({ db, principal, params, body, mutate }) {
        const before = await findPolicy(db, principal, kind, idOf(params));
        return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
          const current = await findPolicy(tx.db, principal, kind, before.id, { forUpdate: true });
          const changes = family.updateColumns(current, body);
          if (Object.keys(changes).length === 0) return {};
          const row = await policyDb(tx.db)
            .updateTable('policies')
            .set({ ...changes, version: sql<number>`version + 1`, updated_at: new Date() })
            .where('id', '=', current.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await family.afterUpdate?.(tx.db, current, row);
          await tx.change(family.entity(row));
          return {};
        });
      },
    }),
    defineRoute({
      method: 'delete',
      path: itemPath,
      tag,
      summary: `Archive a ${noun}`,
      scope: `${scopes}.delete`,
      level: 'workspace',
      minRole: 'manager',
      params,
      response: emptyObject,
      audit: audit('delete'),
      entity: { table: 'policies' },
      async handler({ db, principal, params, mutate }) {
        const before = await findPolicy(db, principal, kind, idOf(params));
        return mutate({ resourceId: before.id, workspaceId: before.workspace_id }, async (tx) => {
          const current = await findPolicy(tx.db, principal, kind, before.id, { forUpdate: true });
          if (current.status === 'archived') return {};
          const row = await policyDb(tx.db)
            .updateTable('policies')
            .set({ status: 'archived', version: sql<number>`version + 1`, updated_at: new Date() })
            .where('id', '=', current.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await tx.change(family.entity(row));
          return {};
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: `${itemPath}/entities`,
      tag,
      summary: `List the entities a ${noun} is attached to`,
      scope: `${scopes}.read`,
      level: 'workspace',
      params,
      query: z.object(pageQuery),
      response: listSchema(family.attached?.schema ?? attachedEntitySchema),
      async handler(ctx) {
        const { db, principal, params, query } = ctx;
        const policy = await findPolicy(db, principal, kind, idOf(params));
        const { data, total } = await attachedEntities(db, policy, query);
        return toList(family.attached ? await family.attached.show(ctx, policy, data) : data, total);
      },
    }),
  ];
}

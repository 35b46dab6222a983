// Model pricing (issue 6): every organisation reads the platform price table and may override any
// (provider, model) with its own row; deleting the override restores the platform price.
// Organisation-level callers only: workspace keys cannot hold model_pricing.* scopes.
import { randomUUID } from 'node:crypto';
import { EntityKind } from '@aigw/proto';
import { sql } from 'kysely';
import { conflict, notFound } from '../api-errors.js';
import { listSchema, toList } from '../http/list.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { writeTombstone } from '../tombstones/tombstones.js';
import {
  changedPriceColumns,
  type ModelPricingRow,
  modelPricingEntity,
  modelPricingSchema,
  modelPricingToApi,
  priceColumns,
} from './model-pricing.entity.js';
import { listPricing, lockOwnPricing, resolvePricing, visiblePricing } from './model-pricing.repository.js';
import {
  createPricingBody,
  listPricingQuery,
  pricingParams,
  resolvePricingQuery,
  updatePricingBody,
} from './model-pricing.schema.js';

const TAG = 'Model Pricing';

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === '23505';
}

function duplicate(aiProvider: string, model: string) {
  return conflict(
    `the organisation already has a price for ${aiProvider} model "${model}": update that row instead`,
    'body.model',
  );
}

export const modelPricingRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/model-pricing',
    tag: TAG,
    summary: 'Create an organisation price override',
    scope: 'model_pricing.create',
    level: 'organisation',
    minRole: 'admin',
    body: createPricingBody,
    response: modelPricingSchema,
    status: 201,
    audit: { action: 'model_pricing.create', resourceType: 'model_pricing' },
    entity: { table: 'model_pricing' },
    async handler({ principal, body, mutate }) {
      const id = randomUUID();
      const { ai_provider, model, currency, ...prices } = body;
      const { extra, ...columns } = priceColumns(prices);
      return mutate({ resourceId: id, workspaceId: null }, async (tx) => {
        let row: ModelPricingRow;
        try {
          row = await tx.db
            .insertInto('model_pricing')
            .values({
              id,
              organisation_id: principal.organisationId,
              ai_provider,
              model,
              currency: currency ?? 'USD',
              ...columns,
              extra: JSON.stringify(extra),
            })
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw duplicate(ai_provider, model);
          throw err;
        }
        await tx.change(modelPricingEntity(row));
        return modelPricingToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/model-pricing',
    tag: TAG,
    summary: 'List model prices',
    scope: 'model_pricing.list',
    level: 'organisation',
    query: listPricingQuery,
    response: listSchema(modelPricingSchema),
    async handler({ db, principal, query }) {
      const { rows, total } = await listPricing(db, principal.organisationId, query);
      return toList(
        rows.map((r) => modelPricingToApi(r.row, r.overridden)),
        total,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/model-pricing/resolve',
    tag: TAG,
    summary: 'Find the price that applies to a model',
    scope: 'model_pricing.read',
    level: 'organisation',
    query: resolvePricingQuery,
    response: modelPricingSchema,
    async handler({ db, principal, query }) {
      const row = await resolvePricing(db, principal.organisationId, query.ai_provider, query.model);
      if (!row) throw notFound(`model pricing for ${query.ai_provider} model "${query.model}"`);
      return modelPricingToApi(row);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/model-pricing/:pricingId',
    tag: TAG,
    summary: 'Get a model price',
    scope: 'model_pricing.read',
    level: 'organisation',
    params: pricingParams,
    response: modelPricingSchema,
    entity: { table: 'model_pricing' },
    async handler({ db, principal, params }) {
      const { row, overridden } = await visiblePricing(db, principal.organisationId, params.pricingId);
      return modelPricingToApi(row, overridden);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/model-pricing/:pricingId',
    tag: TAG,
    summary: 'Update an organisation price override',
    scope: 'model_pricing.update',
    level: 'organisation',
    minRole: 'admin',
    params: pricingParams,
    body: updatePricingBody,
    response: modelPricingSchema,
    audit: { action: 'model_pricing.update', resourceType: 'model_pricing' },
    entity: { table: 'model_pricing' },
    async handler({ principal, params, body, mutate }) {
      const id = params.pricingId;
      return mutate({ resourceId: id, workspaceId: null }, async (tx) => {
        const current = await lockOwnPricing(tx.db, principal.organisationId, id);
        const { ai_provider, model, currency, ...prices } = body;
        const { extra, ...columns } = changedPriceColumns(prices);
        const aiProvider = ai_provider ?? current.ai_provider;
        const pattern = model ?? current.model;
        let row: ModelPricingRow;
        try {
          row = await tx.db
            .updateTable('model_pricing')
            .set({
              ...columns,
              ai_provider: aiProvider,
              model: pattern,
              currency: currency ?? current.currency,
              extra: JSON.stringify(extra ?? current.extra),
              version: sql<number>`version + 1`,
              updated_at: new Date(),
            })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow();
        } catch (err) {
          if (isUniqueViolation(err)) throw duplicate(aiProvider, pattern);
          throw err;
        }
        await tx.change(modelPricingEntity(row));
        return modelPricingToApi(row);
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/model-pricing/:pricingId',
    tag: TAG,
    summary: 'Delete an organisation price override',
    scope: 'model_pricing.delete',
    level: 'organisation',
    minRole: 'admin',
    params: pricingParams,
    response: modelPricingSchema,
    audit: { action: 'model_pricing.delete', resourceType: 'model_pricing' },
    entity: { table: 'model_pricing' },
    async handler({ principal, params, mutate }) {
      const id = params.pricingId;
      return mutate({ resourceId: id, workspaceId: null }, async (tx) => {
        const row = await lockOwnPricing(tx.db, principal.organisationId, id);
        await tx.db.deleteFrom('model_pricing').where('id', '=', id).execute();
        await tx.change(
          await writeTombstone(tx.db, {
            kind: EntityKind.MODEL_PRICING,
            id,
            organisationId: row.organisation_id,
            workspaceId: null,
            lastVersion: Number(row.version),
          }),
        );
        return modelPricingToApi(row);
      });
    },
  }),
];

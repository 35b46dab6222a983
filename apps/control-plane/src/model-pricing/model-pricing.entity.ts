// Model-pricing rows as the API returns them (decimal USD) and as gateways receive them (proto
// Entity with integer micro-units; platform rows carry organisation_id '').
import { type Entity, EntityKind, type ModelPricing } from '@aigw/proto';
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { ControlDatabase, ModelPricingTable } from '../db/schema.js';
import { fromMicros, toMicros } from './model-pricing.money.js';
import type { PriceInput } from './model-pricing.schema.js';

export type ModelPricingRow = Selectable<ModelPricingTable>;

export const modelPricingSchema = z.object({
  id: z.uuid(),
  object: z.literal('model_pricing'),
  source: z.enum(['platform', 'organisation']),
  organisation_id: z.uuid().nullable(),
  ai_provider: z.string(),
  model: z.string(),
  currency: z.string(),
  input_per_mtok: z.number(),
  output_per_mtok: z.number(),
  cached_input_per_mtok: z.number(),
  cache_write_per_mtok: z.number(),
  per_request: z.number(),
  extra: z.record(z.string(), z.number()),
  overridden: z.boolean(),
  created_at: z.string(),
  last_updated_at: z.string(),
});

/** `overridden`: a platform row hidden, for this organisation, by its override of the same model. */
export function modelPricingToApi(row: ModelPricingRow, overridden = false) {
  return {
    id: row.id,
    object: 'model_pricing' as const,
    source: row.organisation_id === null ? ('platform' as const) : ('organisation' as const),
    organisation_id: row.organisation_id,
    ai_provider: row.ai_provider,
    model: row.model,
    currency: row.currency,
    input_per_mtok: fromMicros(row.input_micros_per_mtok),
    output_per_mtok: fromMicros(row.output_micros_per_mtok),
    cached_input_per_mtok: fromMicros(row.cached_input_micros_per_mtok),
    cache_write_per_mtok: fromMicros(row.cache_write_micros_per_mtok),
    per_request: fromMicros(row.request_micros),
    extra: Object.fromEntries(Object.entries(row.extra).map(([k, v]) => [k, fromMicros(v)])),
    overridden,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

export function modelPricingBody(row: ModelPricingRow): ModelPricing {
  return {
    aiProvider: row.ai_provider,
    model: row.model,
    currency: row.currency,
    inputMicrosPerMtok: Number(row.input_micros_per_mtok),
    outputMicrosPerMtok: Number(row.output_micros_per_mtok),
    cachedInputMicrosPerMtok: Number(row.cached_input_micros_per_mtok),
    cacheWriteMicrosPerMtok: Number(row.cache_write_micros_per_mtok),
    requestMicros: Number(row.request_micros),
    extraJson: Object.keys(row.extra).length > 0 ? JSON.stringify(row.extra) : '',
  };
}

export function modelPricingEntity(row: ModelPricingRow): Entity {
  return {
    kind: EntityKind.MODEL_PRICING,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id ?? '',
    workspaceId: '',
    updatedAtMs: row.updated_at.getTime(),
    body: { $case: 'modelPricing', value: modelPricingBody(row) },
  };
}

/** Every live row, platform and organisations alike, for the snapshot. */
export async function readModelPricingEntities(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await trx.selectFrom('model_pricing').selectAll().execute()).map(modelPricingEntity);
}

/** Validated decimals to micro-units (the schema already refused what toMicros cannot convert). */
function micros(value: number): number {
  const result = toMicros(value);
  if (result === null) throw new RangeError(`price ${value} cannot be stored exactly`);
  return result;
}

export interface PriceColumns {
  input_micros_per_mtok: number;
  output_micros_per_mtok: number;
  cached_input_micros_per_mtok: number;
  cache_write_micros_per_mtok: number;
  request_micros: number;
  extra: Record<string, number>;
}

/** Stored columns of a full price set; omitted cache prices take the input price. */
export function priceColumns(input: PriceInput): PriceColumns {
  const inputMicros = micros(input.input_per_mtok);
  return {
    input_micros_per_mtok: inputMicros,
    output_micros_per_mtok: micros(input.output_per_mtok),
    cached_input_micros_per_mtok:
      input.cached_input_per_mtok === undefined ? inputMicros : micros(input.cached_input_per_mtok),
    cache_write_micros_per_mtok:
      input.cache_write_per_mtok === undefined ? inputMicros : micros(input.cache_write_per_mtok),
    request_micros: input.per_request === undefined ? 0 : micros(input.per_request),
    extra: Object.fromEntries(Object.entries(input.extra ?? {}).map(([k, v]) => [k, micros(v)])),
  };
}

/** Stored columns of a partial update: only the prices given. */
export function changedPriceColumns(input: Partial<PriceInput>): Partial<PriceColumns> {
  const out: Partial<PriceColumns> = {};
  if (input.input_per_mtok !== undefined) out.input_micros_per_mtok = micros(input.input_per_mtok);
  if (input.output_per_mtok !== undefined) out.output_micros_per_mtok = micros(input.output_per_mtok);
  if (input.cached_input_per_mtok !== undefined)
    out.cached_input_micros_per_mtok = micros(input.cached_input_per_mtok);
  if (input.cache_write_per_mtok !== undefined)
    out.cache_write_micros_per_mtok = micros(input.cache_write_per_mtok);
  if (input.per_request !== undefined) out.request_micros = micros(input.per_request);
  if (input.extra !== undefined)
    out.extra = Object.fromEntries(Object.entries(input.extra).map(([k, v]) => [k, micros(v)]));
  return out;
}

// Queries of the model-pricing family. A caller sees platform rows and its organisation's rows,
// never another organisation's; an override hides the platform row of the same (provider, model).

import { matchPricing } from '@aigw/pricing';
import type { ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import { forbidden, notFound } from '../api-errors.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase, ModelPricingTable } from '../db/schema.js';
import { type Page, pageBounds } from '../http/list.js';
import type { ModelPricingRow } from './model-pricing.entity.js';

type Scoped = ControlDatabase & { p: ModelPricingTable };

export interface PricingFilters extends Page {
  readonly ai_provider?: readonly string[] | undefined;
  readonly model?: string | undefined;
  readonly model_prefix?: string | undefined;
  readonly source?: readonly ('platform' | 'organisation')[] | undefined;
  readonly include_overridden: boolean;
}

export interface VisiblePricing {
  readonly row: ModelPricingRow;
  readonly overridden: boolean;
}

/** True for a platform row that this organisation overrides with a row of the same pattern. */
function overridden(eb: ExpressionBuilder<Scoped, 'p'>, organisationId: string) {
  return eb.and([
    eb('p.organisation_id', 'is', null),
    eb.exists(
      eb
        .selectFrom('model_pricing as o')
        .select('o.id')
        .where('o.organisation_id', '=', organisationId)
        .whereRef('o.ai_provider', '=', 'p.ai_provider')
        .whereRef('o.model', '=', 'p.model'),
    ),
  ]);
}

function visible(db: Kysely<ControlDatabase>, organisationId: string) {
  return db
    .selectFrom('model_pricing as p')
    .where((eb) =>
      eb.or([eb('p.organisation_id', '=', organisationId), eb('p.organisation_id', 'is', null)]),
    );
}

function split(result: ModelPricingRow & { overridden: SqlBool }): VisiblePricing {
  const { overridden: hidden, ...row } = result;
  return { row, overridden: Boolean(hidden) };
}

export async function listPricing(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  filters: PricingFilters,
): Promise<{ rows: VisiblePricing[]; total: number }> {
  let query = visible(db, organisationId);
  if (!filters.include_overridden) query = query.where((eb) => eb.not(overridden(eb, organisationId)));
  if (filters.ai_provider) query = query.where('p.ai_provider', 'in', filters.ai_provider);
  if (filters.model !== undefined) query = query.where('p.model', '=', filters.model);
  const prefix = filters.model_prefix;
  if (prefix !== undefined)
    query = query.where((eb) => eb.fn<boolean>('starts_with', [eb.ref('p.model'), eb.val(prefix)]));
  const sources = new Set(filters.source ?? ['platform', 'organisation']);
  if (!sources.has('platform')) query = query.where('p.organisation_id', 'is not', null);
  if (!sources.has('organisation')) query = query.where('p.organisation_id', 'is', null);

  const { limit, offset } = pageBounds(filters);
  const page = await readPage(db, query, (q) =>
    q
      .selectAll('p')
      .select((eb) => overridden(eb, organisationId).as('overridden'))
      .orderBy('p.ai_provider')
      .orderBy('p.model')
      // The override first, then the platform row it hides (include_overridden).
      .orderBy((eb) => eb('p.organisation_id', 'is', null))
      .orderBy('p.id')
      .limit(limit)
      .offset(offset),
  );
  return { rows: page.rows.map(split), total: page.total };
}

/** A platform row or one of the organisation's rows; 404 AB08 for anything else. */
export async function visiblePricing(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  id: string,
): Promise<VisiblePricing> {
  const found = await visible(db, organisationId)
    .where('p.id', '=', id)
    .selectAll('p')
    .select((eb) => overridden(eb, organisationId).as('overridden'))
    .executeTakeFirst();
  if (!found) throw notFound('model pricing');
  return split(found);
}

/** Locks one of the organisation's own rows for a write; platform rows are read-only (403 AB03). */
export async function lockOwnPricing(
  trx: Kysely<ControlDatabase>,
  organisationId: string,
  id: string,
): Promise<ModelPricingRow> {
  const row = await trx
    .selectFrom('model_pricing')
    .selectAll()
    .where('id', '=', id)
    .where((eb) => eb.or([eb('organisation_id', '=', organisationId), eb('organisation_id', 'is', null)]))
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('model pricing');
  if (row.organisation_id === null)
    throw forbidden('platform prices are read-only: override one with POST /model-pricing');
  return row;
}

/** The row that prices `model` of `aiProvider` for the organisation (matchPricing's rules). */
export async function resolvePricing(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  aiProvider: string,
  model: string,
): Promise<ModelPricingRow | undefined> {
  const rows = await visible(db, organisationId)
    .where('p.ai_provider', '=', aiProvider)
    .selectAll('p')
    .execute();
  const keyed = rows.map((row) => ({
    organisationId: row.organisation_id ?? '',
    aiProvider: row.ai_provider,
    model: row.model,
    row,
  }));
  return matchPricing(keyed, organisationId, aiProvider, model)?.row;
}

// Request schemas of the model-pricing routes: prices as decimal USD (exact to the micro-unit),
// model patterns with an optional trailing `*`, validated filters.
import { z } from 'zod';
import { csvEnum, pageQuery, uuid } from '../http/list.js';
import { AI_PROVIDERS } from '../integrations/provider-types.js';
import { MAX_PRICE, toMicros } from './model-pricing.money.js';

export const CURRENCIES = ['USD'] as const;

/** A price in USD: 0 to MAX_PRICE, at most six decimals (it is stored as integer micro-units). */
export const price = z
  .number()
  .refine((v) => toMicros(v) !== null, `must be from 0 to ${MAX_PRICE} with at most 6 decimal places`);

/** A model name as providers report it, or a prefix ending in `*` (`*` alone: every model). */
export const modelPattern = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[!-)+-~]*\*?$/, 'must be printable ASCII without spaces, with `*` only as the last character');

/** Other price dimensions: USD per named unit (`per_image`, `per_audio_hour`, ...). */
export const extraPrices = z
  .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'keys are lower_snake_case'), price)
  .refine((m) => Object.keys(m).length <= 32, 'at most 32 keys');

const priceFields = {
  input_per_mtok: price,
  output_per_mtok: price,
  cached_input_per_mtok: price.optional(),
  cache_write_per_mtok: price.optional(),
  per_request: price.optional(),
  extra: extraPrices.optional(),
};

/** Prices as the API and the seed file give them (omitted cache prices mean the input price). */
export const priceInput = z.object(priceFields).strict();
export type PriceInput = z.output<typeof priceInput>;

export const createPricingBody = z
  .object({
    ai_provider: z.enum(AI_PROVIDERS),
    model: modelPattern,
    currency: z.enum(CURRENCIES).optional(),
    ...priceFields,
  })
  .strict();

/** Partial update: only the given fields change (cache prices are not re-derived from input). */
export const updatePricingBody = z
  .object({
    ai_provider: z.enum(AI_PROVIDERS).optional(),
    model: modelPattern.optional(),
    currency: z.enum(CURRENCIES).optional(),
    input_per_mtok: price.optional(),
    output_per_mtok: price.optional(),
    cached_input_per_mtok: price.optional(),
    cache_write_per_mtok: price.optional(),
    per_request: price.optional(),
    extra: extraPrices.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const pricingParams = z.object({ pricingId: uuid });

export const listPricingQuery = z.object({
  ...pageQuery,
  ai_provider: csvEnum(AI_PROVIDERS).optional(),
  /** The stored pattern, exactly (`gpt-4o*` finds the prefix row, not the models it prices). */
  model: modelPattern.optional(),
  /** Rows whose stored pattern starts with this text. */
  model_prefix: z.string().min(1).max(255).optional(),
  source: csvEnum(['platform', 'organisation']).optional(),
  /** Also list platform rows hidden by an organisation override (marked `overridden: true`). */
  include_overridden: z.stringbool().default(false),
});

export const resolvePricingQuery = z.object({
  ai_provider: z.enum(AI_PROVIDERS),
  model: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[!-~]+$/, 'must be printable ASCII without spaces'),
});

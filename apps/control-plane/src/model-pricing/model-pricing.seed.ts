// The platform price table: seed-prices.json (data, edited by hand), validated once at load into
// stored columns. A malformed file stops the control plane at startup rather than mispricing.
import { z } from 'zod';
import { AI_PROVIDERS } from '../integrations/provider-types.js';
import { type PriceColumns, priceColumns } from './model-pricing.entity.js';
import { CURRENCIES, modelPattern, priceInput } from './model-pricing.schema.js';
import seedFile from './seed-prices.json' with { type: 'json' };

const seedSchema = z
  .object({
    description: z.string(),
    as_of: z.iso.date(),
    currency: z.enum(CURRENCIES),
    units: z.string(),
    scope: z.string(),
    providers: z.partialRecord(
      z.enum(AI_PROVIDERS),
      z
        .object({
          source: z.string().min(1),
          notes: z.string().optional(),
          prices: z.array(priceInput.extend({ model: modelPattern }).strict()).min(1),
        })
        .strict(),
    ),
  })
  .strict();

export interface SeedPrice extends PriceColumns {
  readonly ai_provider: string;
  readonly model: string;
  readonly currency: string;
}

export interface PriceSeed {
  /** The date the prices were last checked against the providers' pages. */
  readonly asOf: string;
  readonly prices: readonly SeedPrice[];
}

/** Validates a seed document; throws naming the first bad field or a duplicate (provider, model). */
export function parseSeed(document: unknown): PriceSeed {
  const result = seedSchema.safeParse(document);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`invalid model price seed at ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const seen = new Set<string>();
  const prices: SeedPrice[] = [];
  for (const [aiProvider, entry] of Object.entries(result.data.providers)) {
    for (const { model, ...price } of entry?.prices ?? []) {
      const key = `${aiProvider} ${model}`;
      if (seen.has(key)) throw new Error(`invalid model price seed: ${key} is listed twice`);
      seen.add(key);
      prices.push({ ai_provider: aiProvider, model, currency: result.data.currency, ...priceColumns(price) });
    }
  }
  return { asOf: result.data.as_of, prices };
}

export const PLATFORM_SEED: PriceSeed = parseSeed(seedFile);

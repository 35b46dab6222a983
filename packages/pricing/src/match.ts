// Which price row applies to a request: the most specific model pattern of the provider, and for
// the same pattern the organisation's override before the platform row. Pure; no I/O.

/** What matching reads of a row: a ModelPricing body plus its envelope's organisation ('' = platform). */
export interface PricingKey {
  readonly organisationId: string;
  readonly aiProvider: string;
  readonly model: string;
}

/** How well `pattern` names `model`: exact > longer `prefix*` > shorter; -1 when it does not match. */
export function specificity(pattern: string, model: string): number {
  if (pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    return model.startsWith(prefix) ? prefix.length : -1;
  }
  // Above every prefix: a prefix is at most as long as the model it matches.
  return pattern === model ? model.length + 1 : -1;
}

/**
 * The row pricing `model` of `aiProvider` for `organisationId`, or undefined. Rows of other
 * organisations are ignored. Specificity decides first, so an organisation's `gpt-4o*` does not
 * hide the platform's `gpt-4o-mini*`; between rows with the same pattern the organisation's wins.
 * Providers compare case-insensitively (ids are lowercase), models exactly, as providers report them.
 */
export function matchPricing<T extends PricingKey>(
  rows: Iterable<T>,
  organisationId: string,
  aiProvider: string,
  model: string,
): T | undefined {
  const provider = aiProvider.trim().toLowerCase();
  let best: T | undefined;
  let bestScore = -1;
  let bestIsOwn = false;
  for (const row of rows) {
    const own = row.organisationId !== '' && row.organisationId === organisationId;
    if ((!own && row.organisationId !== '') || row.aiProvider !== provider) continue;
    const score = specificity(row.model, model);
    if (score < 0) continue;
    if (score > bestScore || (score === bestScore && own && !bestIsOwn)) {
      best = row;
      bestScore = score;
      bestIsOwn = own;
    }
  }
  return best;
}

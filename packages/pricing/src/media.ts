// Media units (images, speech characters, audio seconds) and the `extra` price each is charged at:
// the names of the extra dimensions and their lookup order. costOf (cost.ts) does the arithmetic.

/**
 * What an image or audio request measures, besides tokens. Whole non-negative counts; a unit a
 * request does not carry is absent (or 0).
 */
export interface MediaUnits {
  /** Images generated (`n`), priced per image. */
  readonly images?: number | undefined;
  /** The images' quality (`standard`, `hd`, `low`...), picks `per_image_<quality>_<size>`. */
  readonly imageQuality?: string | undefined;
  /** The images' size (`1024x1024`...), picks `per_image_<size>`. */
  readonly imageSize?: string | undefined;
  /** Characters of text turned into speech, priced per million characters (`per_mchar`). */
  readonly characters?: number | undefined;
  /** Seconds of audio transcribed or translated (`per_audio_minute`, else `per_audio_hour`). */
  readonly audioSeconds?: number | undefined;
}

/** Extra prices in micro-units per named unit, as `ModelPricing.extra_json` holds them. */
export type ExtraPrices = Readonly<Record<string, number>>;

const NONE: ExtraPrices = Object.freeze({});
/** Parsed extra_json texts: a few distinct texts (one per priced model), each parsed once. */
const parsed = new Map<string, ExtraPrices>();
const MAX_PARSED = 1024;

/**
 * `extra_json` as prices ('' or text that is not a JSON object of numbers: none). The control plane
 * validates what it stores; a text that still does not parse prices no extra unit rather than
 * failing every request of the model.
 */
export function extraPrices(extraJson: string | undefined): ExtraPrices {
  if (!extraJson) return NONE;
  const known = parsed.get(extraJson);
  if (known) return known;
  let prices: ExtraPrices = NONE;
  try {
    const value: unknown = JSON.parse(extraJson);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      prices = Object.fromEntries(
        Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
      );
    }
  } catch {
    prices = NONE;
  }
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(extraJson, prices);
  return prices;
}

/** A quality or size usable in a key (`hd`, `1024x1792`); anything else names no key. */
const KEY_PART = /^[a-z0-9]{1,32}$/;

/**
 * The price of one image: `per_image_<quality>_<size>`, else `per_image_<size>`, else `per_image`;
 * undefined when the row has none of them.
 */
export function imagePrice(extra: ExtraPrices, quality?: string, size?: string): number | undefined {
  const q = quality?.toLowerCase();
  const s = size?.toLowerCase();
  const sized = s !== undefined && KEY_PART.test(s);
  if (sized && q !== undefined && KEY_PART.test(q)) {
    const exact = extra[`per_image_${q}_${s}`];
    if (exact !== undefined) return exact;
  }
  if (sized) {
    const bySize = extra[`per_image_${s}`];
    if (bySize !== undefined) return bySize;
  }
  return extra.per_image;
}

/** Whether `units` carries anything to price from extra prices. */
export function hasMedia(units: MediaUnits): boolean {
  return Boolean(units.images || units.characters || units.audioSeconds);
}

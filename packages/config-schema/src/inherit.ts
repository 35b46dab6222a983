// Effective settings: a node's own settings over those inherited from its parent.
import { PROVIDER_FIELD_NAMES, SHARED_FIELD_NAMES } from './settings.schema.js';
import type { EffectiveSettings } from './types.js';

/** A node's own, validated settings. */
export type OwnSettings = { -readonly [K in keyof EffectiveSettings]?: EffectiveSettings[K] };

const GUARDRAIL_FIELDS = ['input_guardrails', 'output_guardrails'] as const;

/**
 * Every field is inherited with the child's value winning, with two refinements:
 * - `override_params` merges shallowly (a child's keys win, the parent's other keys stay);
 * - the provider fields (provider, credentials, custom_host, cloud options) travel together: a node
 *   that sets `provider` or `virtual_key` inherits none of them, so a credential is never sent to a
 *   provider it was not written for.
 */
export function inheritSettings(parent: EffectiveSettings | undefined, own: OwnSettings): EffectiveSettings {
  const out: Record<string, unknown> = {};
  const newProvider = own.provider !== undefined || own.virtual_key !== undefined;
  for (const field of PROVIDER_FIELD_NAMES) {
    const value = own[field] ?? (newProvider ? undefined : parent?.[field]);
    if (value !== undefined) out[field] = value;
  }
  for (const field of [...SHARED_FIELD_NAMES, ...GUARDRAIL_FIELDS]) {
    if (field === 'override_params') {
      if (parent?.override_params || own.override_params) {
        out[field] = { ...parent?.override_params, ...own.override_params };
      }
      continue;
    }
    const value = own[field] ?? parent?.[field];
    if (value !== undefined) out[field] = value;
  }
  return out as EffectiveSettings;
}

// How a record that takes credentials from secret references shows it in responses: its mappings and
// the state of their last resolution (integrations and virtual keys answer with the same shape).
import { z } from 'zod';
import type { SecretMapping } from '../db/schema.js';

export const secretMappingsOut = z.array(
  z.object({ field: z.string(), secret_reference_id: z.uuid(), key: z.string().nullable() }),
);

/** Where credentials come from secret references: the last resolution; null without mappings. */
export const secretStateOut = z
  .object({
    resolved_at: z.string().nullable(),
    checked_at: z.string().nullable(),
    error: z.string().nullable(),
    /** Resolution failed past the refresh window: gateways refuse to use the credentials. */
    withheld: z.boolean(),
  })
  .nullable();

interface StateColumns {
  readonly secret_mappings: readonly SecretMapping[];
  readonly secrets_resolved_at: Date | null;
  readonly secrets_checked_at: Date | null;
  readonly secrets_error: string | null;
  readonly secrets_withheld: boolean;
}

export function secretStateToApi(row: StateColumns) {
  return {
    secret_mappings: [...row.secret_mappings],
    secrets:
      row.secret_mappings.length === 0
        ? null
        : {
            resolved_at: row.secrets_resolved_at?.toISOString() ?? null,
            checked_at: row.secrets_checked_at?.toISOString() ?? null,
            error: row.secrets_error,
            withheld: row.secrets_withheld,
          },
  };
}

/** Why gateways refuse withheld credentials (integration and provider entities carry it). */
export function withheldMessage(error: string | null): string {
  return `its credentials come from secret references that could not be resolved: ${error ?? 'unknown error'}`;
}

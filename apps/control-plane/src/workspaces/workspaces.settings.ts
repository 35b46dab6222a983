// Workspace settings: overrides of the organisation's visibility settings (spec 2.6) and the
// workspace-only key and logging settings (spec part 8), as stored, patched and shown.
import type { WorkspaceSettings } from '@aigw/proto';
import { z } from 'zod';
import {
  type AccessOverrides,
  type AccessSettingName,
  accessToProto,
  effectiveAccess,
  mergeOverrides,
  workspaceAccessSchema,
} from '../organisations/access-settings.js';

export const MAX_EXPIRY_DAYS = 3650;

/** Stored form (`workspaces.settings`): only what the workspace sets; absent means the default. */
export interface StoredSettings {
  access?: AccessOverrides;
  max_api_keys_per_user?: number;
  api_key_default_expiry_days?: number;
  api_key_max_expiry_days?: number;
  disable_body_logging?: boolean;
}

const expiryDays = z.number().int().min(1).max(MAX_EXPIRY_DAYS).nullable().optional();

/** Request form: access overrides and workspace settings side by side; null restores the default. */
export const settingsInput = z
  .object({
    ...workspaceAccessSchema.shape,
    /** 0 means no limit. */
    max_api_keys_per_user: z.number().int().min(0).max(10_000).nullable().optional(),
    api_key_default_expiry_days: expiryDays,
    api_key_max_expiry_days: expiryDays,
    disable_body_logging: z.boolean().nullable().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const def = s.api_key_default_expiry_days;
    const max = s.api_key_max_expiry_days;
    if (def != null && max != null && def > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['api_key_default_expiry_days'],
        message: 'must not exceed api_key_max_expiry_days',
      });
    }
  });

export type SettingsInput = z.output<typeof settingsInput>;

const WORKSPACE_ONLY = [
  'max_api_keys_per_user',
  'api_key_default_expiry_days',
  'api_key_max_expiry_days',
  'disable_body_logging',
] as const;

/** Applies a patch to the stored settings; returns the new stored form or an error message. */
export function applySettings(
  current: StoredSettings,
  patch: SettingsInput | undefined,
): { settings: StoredSettings } | { error: string; param: string } {
  if (!patch) return { settings: current };
  const next: StoredSettings = { ...current };
  const access = mergeOverrides(
    current.access ?? {},
    patch as Partial<Record<AccessSettingName, boolean | null>>,
  );
  if (Object.keys(access).length > 0) next.access = access;
  else delete next.access;
  for (const name of WORKSPACE_ONLY) {
    const value = patch[name];
    if (value === null) delete next[name];
    else if (value !== undefined) (next as Record<string, unknown>)[name] = value;
  }
  const def = next.api_key_default_expiry_days;
  const max = next.api_key_max_expiry_days;
  if (def !== undefined && max !== undefined && def > max) {
    return {
      error: `settings.api_key_default_expiry_days (${def}) must not exceed settings.api_key_max_expiry_days (${max})`,
      param: 'body.settings.api_key_default_expiry_days',
    };
  }
  return { settings: next };
}

/** Effective values: every access setting resolved, workspace settings with their defaults. */
export function effectiveSettings(stored: StoredSettings, organisationAccess: AccessOverrides) {
  return {
    ...effectiveAccess(organisationAccess, stored.access ?? {}),
    max_api_keys_per_user: stored.max_api_keys_per_user ?? 0,
    api_key_default_expiry_days: stored.api_key_default_expiry_days ?? null,
    api_key_max_expiry_days: stored.api_key_max_expiry_days ?? null,
    disable_body_logging: stored.disable_body_logging ?? false,
  };
}

/** What the workspace itself sets (access overrides and workspace settings), as given. */
export function settingsOverrides(stored: StoredSettings): Record<string, boolean | number> {
  const out: Record<string, boolean | number> = { ...(stored.access ?? {}) };
  for (const name of WORKSPACE_ONLY) {
    const value = stored[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Proto form: access carries overrides only (gateways resolve them against the organisation). */
export function settingsToProto(stored: StoredSettings): WorkspaceSettings {
  return {
    access: accessToProto(stored.access ?? {}),
    maxApiKeysPerUser: stored.max_api_keys_per_user ?? 0,
    apiKeyDefaultExpiryDays: stored.api_key_default_expiry_days ?? 0,
    apiKeyMaxExpiryDays: stored.api_key_max_expiry_days ?? 0,
    disableBodyLogging: stored.disable_body_logging ?? false,
  };
}

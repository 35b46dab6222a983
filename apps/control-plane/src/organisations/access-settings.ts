// Role visibility settings of spec 2.6, set per organisation and overridable per workspace.
import type { AccessSettings } from '@aigw/proto';
import { z } from 'zod';

export const ACCESS_DEFAULTS = {
  membersViewAllData: true,
  managersViewAllData: true,
  membersViewAnalytics: true,
  managersViewAnalytics: true,
  membersViewPrompts: true,
  managersViewPrompts: true,
  membersWritePrompts: false,
  managersWritePrompts: true,
} as const;

export type AccessSettingName = keyof typeof ACCESS_DEFAULTS;
export type AccessSettingsValues = Record<AccessSettingName, boolean>;

const NAMES = Object.keys(ACCESS_DEFAULTS) as AccessSettingName[];

/** Organisation level: each setting a boolean (unset keeps the current value). */
export const organisationAccessSchema = z
  .object(
    Object.fromEntries(NAMES.map((n) => [n, z.boolean().optional()])) as Record<
      AccessSettingName,
      z.ZodOptional<z.ZodBoolean>
    >,
  )
  .strict();

/** Workspace level: a boolean overrides, null removes the override (inherit the organisation). */
export const workspaceAccessSchema = z
  .object(
    Object.fromEntries(NAMES.map((n) => [n, z.boolean().nullable().optional()])) as Record<
      AccessSettingName,
      z.ZodOptional<z.ZodNullable<z.ZodBoolean>>
    >,
  )
  .strict();

export type AccessOverrides = Partial<Record<AccessSettingName, boolean>>;

/** Applies a patch where null deletes an override. */
export function mergeOverrides(
  current: AccessOverrides,
  patch: Partial<Record<AccessSettingName, boolean | null>>,
): AccessOverrides {
  const next: AccessOverrides = { ...current };
  for (const name of NAMES) {
    const value = patch[name];
    if (value === null) delete next[name];
    else if (value !== undefined) next[name] = value;
  }
  return next;
}

/** Effective values: workspace overrides over organisation values over spec defaults. */
export function effectiveAccess(
  organisation: AccessOverrides,
  workspace: AccessOverrides = {},
): AccessSettingsValues {
  const out = { ...ACCESS_DEFAULTS } as AccessSettingsValues;
  for (const name of NAMES) out[name] = workspace[name] ?? organisation[name] ?? ACCESS_DEFAULTS[name];
  return out;
}

/** Proto field names equal the API's, so only set values are copied. */
export function accessToProto(values: AccessOverrides): AccessSettings {
  return Object.fromEntries(NAMES.filter((n) => values[n] !== undefined).map((n) => [n, values[n]]));
}

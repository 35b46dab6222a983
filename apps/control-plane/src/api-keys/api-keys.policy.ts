// Rules a new or changed key must meet: never broader than its creator, workspace keys hold only
// workspace scopes, and the workspace's key-count and expiry settings (spec 2.5, 5.3, part 8).

import { forbidden, invalid } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { WORKSPACE_SCOPES } from '../auth/scopes.js';

const WORKSPACE_SCOPE_SET: ReadonlySet<string> = new Set(WORKSPACE_SCOPES);
const DAY_MS = 24 * 60 * 60 * 1000;

/** 403 AB03 when the caller does not itself hold every requested scope (no escalation). */
export function assertScopesHeld(principal: Principal, scopes: readonly string[]): void {
  const missing = scopes.filter((scope) => !principal.scopes.has(scope));
  if (missing.length > 0) {
    throw forbidden(`a key cannot be given scopes its creator does not hold: ${missing.join(', ')}`);
  }
}

/** 400 AB01 when a workspace key asks for an organisation-only scope. */
export function assertWorkspaceScopes(scopes: readonly string[]): void {
  const outside = scopes.filter((scope) => !WORKSPACE_SCOPE_SET.has(scope));
  if (outside.length > 0) {
    throw invalid(`workspace keys cannot hold organisation scopes: ${outside.join(', ')}`, 'body.scopes');
  }
}

/** The workspace settings that bound its keys; 0 means no limit (or no default). */
export interface WorkspaceKeySettings {
  readonly maxApiKeysPerUser: number;
  readonly defaultExpiryDays: number;
  readonly maxExpiryDays: number;
}

function wholeNumber(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

/** Reads `max_api_keys_per_user`, `api_key_default_expiry_days`, `api_key_max_expiry_days`. */
export function workspaceKeySettings(settings: Record<string, unknown>): WorkspaceKeySettings {
  return {
    maxApiKeysPerUser: wholeNumber(settings.max_api_keys_per_user),
    defaultExpiryDays: wholeNumber(settings.api_key_default_expiry_days),
    maxExpiryDays: wholeNumber(settings.api_key_max_expiry_days),
  };
}

/**
 * Expiry of a new workspace key: the requested time (at most the maximum), else the default, else
 * the maximum, else none.
 */
export function expiryOnCreate(
  settings: WorkspaceKeySettings,
  requested: Date | undefined,
  now: Date,
): Date | null {
  if (requested) {
    assertWithinMaximum(settings, requested, now);
    return requested;
  }
  const days =
    settings.maxExpiryDays > 0 && settings.defaultExpiryDays > 0
      ? Math.min(settings.defaultExpiryDays, settings.maxExpiryDays)
      : settings.defaultExpiryDays || settings.maxExpiryDays;
  return days > 0 ? new Date(now.getTime() + days * DAY_MS) : null;
}

/** A changed expiry: null (never) is refused when the workspace sets a maximum. */
export function expiryOnUpdate(
  settings: WorkspaceKeySettings,
  requested: Date | null,
  now: Date,
): Date | null {
  if (requested === null) {
    if (settings.maxExpiryDays > 0) {
      throw invalid(
        `keys of this workspace must expire within ${settings.maxExpiryDays} days`,
        'body.expires_at',
      );
    }
    return null;
  }
  assertWithinMaximum(settings, requested, now);
  return requested;
}

function assertWithinMaximum(settings: WorkspaceKeySettings, expiresAt: Date, now: Date): void {
  if (settings.maxExpiryDays > 0 && expiresAt.getTime() > now.getTime() + settings.maxExpiryDays * DAY_MS) {
    throw invalid(
      `expires_at is beyond this workspace's maximum key lifetime of ${settings.maxExpiryDays} days`,
      'body.expires_at',
    );
  }
}

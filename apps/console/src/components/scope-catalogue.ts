// Which scopes a new key may be given, as the console offers them: the caller's own scopes (the API
// refuses any other: no escalation), grouped by resource, and for workspace keys only the workspace
// scopes (api/catalogue.ts, generated from the control plane's rule by `pnpm docs:api`); the API stays
// the judge and its refusal is shown by the scopes field.
import { WORKSPACE_SCOPES } from '../api/catalogue.js';

const WORKSPACE: ReadonlySet<string> = new Set(WORKSPACE_SCOPES);

export type KeyLevel = 'organisation' | 'workspace';

export function resourceOf(scope: string): string {
  const dot = scope.indexOf('.');
  return dot < 0 ? scope : scope.slice(0, dot);
}

export function isWorkspaceScope(scope: string): boolean {
  return WORKSPACE.has(scope);
}

export function validForLevel(scope: string, level: KeyLevel): boolean {
  return level === 'organisation' || isWorkspaceScope(scope);
}

export interface ScopeGroup {
  readonly resource: string;
  readonly scopes: readonly string[];
}

/** The scopes the caller holds that a key of `level` may hold, grouped by resource (catalogue order kept). */
export function scopeGroups(held: readonly string[], level: KeyLevel): ScopeGroup[] {
  const groups = new Map<string, string[]>();
  for (const scope of held) {
    if (!validForLevel(scope, level)) continue;
    const resource = resourceOf(scope);
    const list = groups.get(resource) ?? [];
    list.push(scope);
    groups.set(resource, list);
  }
  return [...groups].map(([resource, scopes]) => ({ resource, scopes }));
}

/** Chosen scopes a key of `level` cannot hold (kept chosen so the user sees them; the API refuses them). */
export function invalidChoices(chosen: readonly string[], level: KeyLevel): string[] {
  return chosen.filter((scope) => !validForLevel(scope, level));
}

const ACRONYMS: Readonly<Record<string, string>> = { api: 'API', mcp: 'MCP' };

/** "virtual_keys" -> "Virtual keys", "api_keys" -> "API keys". */
export function resourceTitle(resource: string): string {
  const words = resource.split('_').map((word) => ACRONYMS[word] ?? word);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

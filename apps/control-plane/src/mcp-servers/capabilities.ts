// Capabilities as stored: the names disabled per kind. An update names items and whether each is
// enabled; everything not disabled is enabled (a tool the server adds later is served at once).
import type { McpCapabilitiesColumn } from '../db/mcp.db.js';

export interface CapabilityChange {
  readonly type: 'tool' | 'resource' | 'prompt';
  readonly name: string;
  readonly enabled: boolean;
}

const PLURAL = { tool: 'tools', resource: 'resources', prompt: 'prompts' } as const;

export const ALL_ENABLED: McpCapabilitiesColumn = { tools: [], resources: [], prompts: [] };

export function applyCapabilities(
  current: McpCapabilitiesColumn,
  changes: readonly CapabilityChange[],
): McpCapabilitiesColumn {
  const next = {
    tools: new Set(current.tools),
    resources: new Set(current.resources),
    prompts: new Set(current.prompts),
  };
  for (const change of changes) {
    const set = next[PLURAL[change.type]];
    if (change.enabled) set.delete(change.name);
    else set.add(change.name);
  }
  return {
    tools: [...next.tools].sort(),
    resources: [...next.resources].sort(),
    prompts: [...next.prompts].sort(),
  };
}

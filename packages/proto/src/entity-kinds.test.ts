import { describe, expect, it } from 'vitest';
import { ENTITY_KINDS, isEntityKind } from './entity-kinds.js';
import { EntityKind } from './gen/aigw/v1/entities.js';

describe('ENTITY_KINDS', () => {
  it('lists every concrete kind in enum order', () => {
    expect(ENTITY_KINDS).toEqual([
      EntityKind.ORGANISATION,
      EntityKind.WORKSPACE,
      EntityKind.API_KEY,
      EntityKind.INTEGRATION,
      EntityKind.PROVIDER,
      EntityKind.VIRTUAL_KEY,
      EntityKind.CONFIG,
      EntityKind.RATE_LIMIT_POLICY,
      EntityKind.USAGE_LIMIT_POLICY,
      EntityKind.GUARDRAIL,
      EntityKind.MODEL_PRICING,
      EntityKind.PROMPT,
      EntityKind.PROMPT_PARTIAL,
      EntityKind.DEPLOYMENT,
      EntityKind.MCP_INTEGRATION,
      EntityKind.MCP_SERVER,
    ]);
    expect(Object.isFrozen(ENTITY_KINDS)).toBe(true);
  });

  it('recognises only concrete kinds', () => {
    expect(isEntityKind(EntityKind.CONFIG)).toBe(true);
    expect(isEntityKind(EntityKind.UNSPECIFIED)).toBe(false);
    expect(isEntityKind(EntityKind.UNRECOGNIZED)).toBe(false);
    expect(isEntityKind(42)).toBe(false);
  });
});

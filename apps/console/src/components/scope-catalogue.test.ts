import { describe, expect, it } from 'vitest';
import { invalidChoices, isWorkspaceScope, resourceTitle, scopeGroups } from './scope-catalogue.js';

describe('scope catalogue', () => {
  it('takes the workspace scopes from the control plane (generated api/catalogue.ts)', () => {
    expect(['logs.list', 'workspaces.read', 'workspace_members.list'].map(isWorkspaceScope)).toEqual([
      true,
      true,
      true,
    ]);
    expect(['integrations.list', 'workspaces.create', 'users.list'].map(isWorkspaceScope)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('groups the held scopes by resource, only those valid for the level', () => {
    const held = ['logs.list', 'logs.view', 'users.list', 'workspaces.read', 'completions.write'];
    expect(scopeGroups(held, 'workspace')).toEqual([
      { resource: 'logs', scopes: ['logs.list', 'logs.view'] },
      { resource: 'workspaces', scopes: ['workspaces.read'] },
      { resource: 'completions', scopes: ['completions.write'] },
    ]);
    expect(scopeGroups(held, 'organisation').map((g) => g.resource)).toEqual([
      'logs',
      'users',
      'workspaces',
      'completions',
    ]);
  });

  it('names chosen scopes a workspace key cannot hold', () => {
    expect(invalidChoices(['logs.list', 'integrations.list', 'workspaces.create'], 'workspace')).toEqual([
      'integrations.list',
      'workspaces.create',
    ]);
    expect(invalidChoices(['integrations.list'], 'organisation')).toEqual([]);
  });

  it('titles resources for people', () => {
    expect(resourceTitle('virtual_keys')).toBe('Virtual keys');
    expect(resourceTitle('api_keys')).toBe('API keys');
    expect(resourceTitle('mcp_servers')).toBe('MCP servers');
  });
});

// Spec part 3 on limits set directly on workspaces, keys, providers and integrations (also per
// workspace): raising the credit limit resets both alerts, raising or clearing the threshold resets
// the threshold alert, lowering resets nothing; other limit types and groups keep their alerts.
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { type ControlPlaneFixture, test } from '../../test/harness.js';
import type { AlertSubjectKind } from '../alerts/alerts.db.js';
import { activeAlerts, insertAlert } from '../alerts/alerts.test-support.js';
import { createIntegration } from '../integrations/integrations.test-support.js';
import { createWorkspace } from './policies.test-support.js';
import { entityLimitGroup } from './policy-alerts.js';

type Limit = { credit_limit: number; alert_threshold?: number };

interface Target {
  readonly kind: AlertSubjectKind;
  readonly id: string;
  readonly workspaceId?: string;
  /** Sets the cost limit of the entity through the admin API. */
  readonly put: (limit: Limit) => Promise<void>;
}

async function expectOk(res: Promise<{ status: number; body: unknown }>): Promise<void> {
  const { status, body } = await res;
  expect(status, JSON.stringify(body)).toBe(200);
}

async function integrationFor(cp: ControlPlaneFixture, slug: string) {
  return createIntegration(cp, { name: slug, slug, allow_all_workspaces: true });
}

const targets: Record<string, (cp: ControlPlaneFixture) => Promise<Target>> = {
  async workspace(cp) {
    const ws = await createWorkspace(cp, 'alerts-ws');
    return {
      kind: 'workspace',
      id: ws.id,
      put: (limit) => expectOk(cp.call('put', `/workspaces/${ws.id}`, { body: { usage_limits: [limit] } })),
    };
  },
  async 'api key'(cp) {
    const ws = await createWorkspace(cp, 'alerts-key');
    const key = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'alerts', workspace_id: ws.id, scopes: ['completions.write'] },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    return {
      kind: 'api_key',
      id: key.body.id,
      put: (limit) =>
        expectOk(cp.call('put', `/api-keys/${key.body.id}`, { body: { usage_limits: [limit] } })),
    };
  },
  async provider(cp) {
    const ws = await createWorkspace(cp, 'alerts-provider');
    const integration = await integrationFor(cp, 'alerts-provider');
    const provider = await cp.call('post', '/providers', {
      body: { workspace_id: ws.id, integration_id: integration.id, slug: 'alerts' },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    return {
      kind: 'provider',
      id: provider.body.id,
      put: (limit) =>
        expectOk(cp.call('put', `/providers/${provider.body.id}`, { body: { usage_limits: [limit] } })),
    };
  },
  async 'integration workspace'(cp) {
    const ws = await createWorkspace(cp, 'alerts-iw');
    const integration = await integrationFor(cp, 'alerts-iw');
    return {
      kind: 'integration',
      id: integration.id,
      workspaceId: ws.id,
      put: (limit) =>
        expectOk(
          cp.call('put', `/integrations/${integration.id}/workspaces`, {
            body: { workspaces: [{ id: ws.id, usage_limits: [limit] }], create_default_provider: false },
          }),
        ),
    };
  },
  async integration(cp) {
    const integration = await integrationFor(cp, 'alerts-int');
    return {
      kind: 'integration',
      id: integration.id,
      put: (limit) =>
        expectOk(cp.call('put', `/integrations/${integration.id}`, { body: { usage_limits: [limit] } })),
    };
  },
};

/** The groups watched: the target's cost limit, its tokens limit, and a group of a bystander. */
function groups(target: Target) {
  return {
    cost: entityLimitGroup('cost', target.workspaceId),
    tokens: entityLimitGroup('tokens', target.workspaceId),
    other:
      target.workspaceId === undefined
        ? entityLimitGroup('cost', '00000000-0000-4000-8000-000000000000')
        : entityLimitGroup('cost'),
  };
}

async function raiseAll(pool: pg.Pool, organisationId: string, target: Target): Promise<void> {
  for (const group of Object.values(groups(target))) {
    for (const kind of ['threshold', 'exhausted'] as const)
      await insertAlert(pool, {
        organisationId,
        subjectKind: target.kind,
        subjectId: target.id,
        kind,
        group,
      });
  }
}

/** [threshold active, exhausted active] per watched group. */
async function state(pool: pg.Pool, target: Target) {
  const result: Record<string, [boolean, boolean]> = {};
  for (const [name, group] of Object.entries(groups(target)))
    result[name] = await activeAlerts(pool, { kind: target.kind, id: target.id }, group);
  return result;
}

const RAISED: [boolean, boolean] = [true, true];

describe('alerts on entity limits', () => {
  for (const [name, make] of Object.entries(targets)) {
    test(`${name}: raising resets, lowering does not`, async ({ cp, pg }) => {
      const target = await make(cp);
      const org = (await cp.call('get', '/organisation')).body.id as string;
      await target.put({ credit_limit: 100, alert_threshold: 80 });
      await raiseAll(pg.pool, org, target);

      await target.put({ credit_limit: 90, alert_threshold: 70 });
      expect(await state(pg.pool, target)).toEqual({ cost: RAISED, tokens: RAISED, other: RAISED });

      await target.put({ credit_limit: 90, alert_threshold: 85 });
      expect(await state(pg.pool, target)).toEqual({ cost: [false, true], tokens: RAISED, other: RAISED });

      await raiseAll(pg.pool, org, target);
      await target.put({ credit_limit: 90 });
      expect(await state(pg.pool, target)).toEqual({ cost: [false, true], tokens: RAISED, other: RAISED });

      await raiseAll(pg.pool, org, target);
      await target.put({ credit_limit: 200, alert_threshold: 50 });
      expect(await state(pg.pool, target)).toEqual({ cost: [false, false], tokens: RAISED, other: RAISED });
    });
  }
});

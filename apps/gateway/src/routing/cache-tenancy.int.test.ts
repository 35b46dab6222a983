// The response cache is the workspace's own: two workspaces (of one organisation or of two) sending
// the same request to the same provider URL never share an entry, so one tenant's answer can never
// be read back by another. Within a workspace, the same request is a hit.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type ControlPlaneGateway,
  managedTenant,
  startControlPlaneGateway,
} from '../../test/control-plane-entities.js';

let gw: ControlPlaneGateway;
const tenants: { key: string }[] = [];

beforeAll(async () => {
  gw = await startControlPlaneGateway([]);
  const orgA = randomUUID();
  // Workspaces 1 and 2 in one organisation, 3 in another; every provider points at the same mock.
  const entities = [orgA, orgA, randomUUID()].flatMap((org) => {
    const tenant = { org, ws: randomUUID(), key: `aigw_${randomUUID()}` };
    tenants.push(tenant);
    return managedTenant(gw, tenant);
  });
  gw.use(entities);
});

afterAll(() => gw?.close());

describe('the response cache and tenants', () => {
  test("a workspace never gets another workspace's cached answer", async () => {
    const body = JSON.stringify({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: `what only I asked ${randomUUID()}` }],
    });
    const ask = async (tenant: { key: string } | undefined) => {
      const res = await fetch(`${gw.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': tenant?.key ?? '',
          'x-service-config': JSON.stringify({ provider: '@openai-prod', cache: { mode: 'simple' } }),
        },
        body,
      });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { id: string };
      return { status: res.headers.get('x-service-cache-status'), id: answer.id };
    };
    const first = await ask(tenants[0]);
    expect(first.status).toBe('MISS');
    // Cached answers are stored once they went out: wait for the entry.
    let again = await ask(tenants[0]);
    for (let i = 0; i < 50 && again.status !== 'HIT'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      again = await ask(tenants[0]);
    }
    expect(again).toEqual({ status: 'HIT', id: first.id });
    for (const other of [tenants[1], tenants[2]]) {
      const theirs = await ask(other);
      expect(theirs.status).toBe('MISS');
      expect(theirs.id).not.toBe(first.id);
    }
  });
});

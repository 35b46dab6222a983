import { test as base } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, startControlPlane } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';

const FORWARDED = {
  'x-forwarded-for': '203.0.113.9',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'admin.example.com',
};

/** A control plane with `env`; a workspace created through it and its SCIM base, as a client behind a proxy sees them. */
async function throughProxy(fixtures: Parameters<typeof startControlPlane>[0], env: Record<string, string>) {
  const { app } = startControlPlane(fixtures, env);
  await app.start();
  try {
    const base = `http://127.0.0.1:${app.ports.http}`;
    const headers = { 'x-service-api-key': ADMIN_KEY, 'content-type': 'application/json', ...FORWARDED };
    const slug = `ws-${Math.random().toString(36).slice(2, 10)}`;
    const created = await fetch(`${base}/v1/workspaces`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: slug, slug }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const audit = (await auditEvents(fixtures.pg.pool)).find(
      (a) => a.action === 'workspaces.create' && a.resourceId === id,
    );
    const scim = await fetch(`${base}/scim/v2/ServiceProviderConfig`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...FORWARDED },
    });
    expect(scim.status).toBe(200);
    const location = ((await scim.json()) as { meta: { location: string } }).meta.location;
    return { ip: audit?.ip, location };
  } finally {
    await app.stop();
  }
}

describe('TRUST_PROXY', () => {
  base("unset: X-Forwarded-* headers are the client's word and change nothing", async ({ pg, nats }) => {
    const seen = await throughProxy({ pg, nats }, {});
    expect(seen.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(seen.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/scim\/v2\/ServiceProviderConfig$/);
  });

  base(
    'set: audit records hold the client address, SCIM locations the scheme and host it used',
    async ({ pg, nats }) => {
      const seen = await throughProxy({ pg, nats }, { TRUST_PROXY: 'loopback' });
      expect(seen.ip).toBe('203.0.113.9');
      expect(seen.location).toBe('https://admin.example.com/scim/v2/ServiceProviderConfig');
    },
  );
});

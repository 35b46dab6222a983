// Alert e-mail delivery that loses nothing: an SMTP server that refuses first still gets the mail,
// exactly once; an alert still unsent when its control plane stops is sent by the next one (the
// retry state is in the database); without SMTP_URL startup says e-mail is off and alerts are listed.
import { Writable } from 'node:stream';
import { createLogger } from '@aigw/runtime';
import { test } from '@aigw/testkit';
import { startSmtpServer } from '@aigw/testkit/smtp';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, MASTER_KEY, SNAPSHOT_TOKEN, startControlPlane } from '../../test/harness.js';
import { createApp } from '../app.js';
import { loadControlPlaneConfig } from '../config.js';
import { alertPublisher, until, usageAlertEvent } from './alerts.test-support.js';

const FAST_RETRY = { SMTP_RETRY_BASE_MS: '20', SMTP_RETRY_MAX_MS: '100', SMTP_POLL_MS: '20' };

async function bootstrap(call: ReturnType<typeof apiClient>) {
  const org = (await call('get', '/organisation')).body.id as string;
  const ws = await call('post', '/workspaces', { body: { name: `Mail ${Math.random()}` } });
  expect(ws.status, JSON.stringify(ws.body)).toBe(201);
  return { org, workspace: ws.body.id as string };
}

describe('alert e-mail delivery', () => {
  test('an SMTP server that refuses twice gets the alert on the third attempt, exactly once', async ({
    pg,
    nats,
  }) => {
    const smtp = await startSmtpServer({ refuseFirst: 2 });
    const { app, namespace } = startControlPlane({ pg, nats }, { SMTP_URL: smtp.url, ...FAST_RETRY });
    await app.start();
    const gateway = await alertPublisher(nats.url, namespace);
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const { org, workspace } = await bootstrap(call);
      const first = usageAlertEvent({
        organisationId: org,
        workspaceId: workspace,
        entityId: '55555555-5555-4555-8555-555555555555',
        groupValue: 'api_key=k1',
      });
      await gateway.publish(first);
      const mine = '/alerts?policy_id=55555555-5555-4555-8555-555555555555';
      const sent = await until(
        () => call('get', mine),
        (res) => res.body.data?.[0]?.email.state === 'sent',
      );
      expect(sent.body.data[0].email).toMatchObject({ state: 'sent', attempts: 3 });
      expect(smtp.refused()).toBe(2);
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]?.to).toEqual(['owner@example.com']);
      expect(smtp.received[0]?.subject).toBe(
        'Usage alert threshold reached: Usage limits policy 55555555-5555-4555-8555-555555555555',
      );

      // The mailer keeps running (a second alert goes out) and never sends the first one again.
      await gateway.publish({ ...first, groupValue: 'api_key=k2', id: `${first.id}-k2` });
      const mails = await smtp.waitFor(2);
      expect(mails.map((m) => m.raw.match(/^X-Alert-Id: (.*)$/im)?.[1]?.trim())).toEqual([
        sent.body.data[0].id,
        expect.not.stringMatching(sent.body.data[0].id),
      ]);
      await until(
        () => call('get', mine),
        (res) =>
          res.body.total === 2 &&
          res.body.data.every((a: { email: { state: string } }) => a.email.state === 'sent'),
      );
      expect(smtp.received).toHaveLength(2);
    } finally {
      await gateway.close();
      await app.stop();
      await smtp.close();
    }
  });

  test('an alert unsent when its control plane stops is sent by the next one', async ({ pg, nats }) => {
    const down = await startSmtpServer({ refuseFirst: Number.MAX_SAFE_INTEGER });
    const up = await startSmtpServer();
    const first = startControlPlane({ pg, nats }, { SMTP_URL: down.url, ...FAST_RETRY });
    await first.app.start();
    const gateway = await alertPublisher(nats.url, first.namespace);
    let firstRunning = true;
    try {
      const call = apiClient(`http://127.0.0.1:${first.app.ports.http}`, ADMIN_KEY);
      const { org, workspace } = await bootstrap(call);
      await gateway.publish(
        usageAlertEvent({
          organisationId: org,
          workspaceId: workspace,
          entityId: '66666666-6666-4666-8666-666666666666',
          groupValue: 'api_key=k1',
        }),
      );
      const mine = '/alerts?policy_id=66666666-6666-4666-8666-666666666666';
      const failing = await until(
        () => call('get', mine),
        (res) => (res.body.data?.[0]?.email.attempts ?? 0) >= 2,
      );
      expect(failing.body.data[0].email.state).toBe('pending');
      await first.app.stop();
      firstRunning = false;

      const second = startControlPlane({ pg, nats }, { SMTP_URL: up.url, ...FAST_RETRY });
      await second.app.start();
      try {
        const again = apiClient(`http://127.0.0.1:${second.app.ports.http}`, ADMIN_KEY);
        const sent = await until(
          () => again('get', mine),
          (res) => res.body.data?.[0]?.email.state === 'sent',
        );
        expect(sent.body.total).toBe(1);
        expect(up.received).toHaveLength(1);
        expect(up.received[0]?.raw.match(/^X-Alert-Id: (.*)$/im)?.[1]?.trim()).toBe(sent.body.data[0].id);
        expect(down.received).toHaveLength(0);
      } finally {
        await second.app.stop();
      }
    } finally {
      await gateway.close();
      if (firstRunning) await first.app.stop();
      await down.close();
      await up.close();
    }
  });

  test('without SMTP_URL startup says alert e-mail is off, and alerts are still listed', async ({
    pg,
    nats,
  }) => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = createApp(
      loadControlPlaneConfig({
        PORT: '0',
        GRPC_PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: pg.url,
        NATS_URL: nats.url,
        NATS_NAMESPACE: nats.prefix,
        BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
        MASTER_KEY,
        SNAPSHOT_SERVICE_TOKEN: SNAPSHOT_TOKEN,
      }),
      { log: createLogger({ app: 'control-plane', level: 'info', destination }) },
    );
    await app.start();
    const gateway = await alertPublisher(nats.url, nats.prefix);
    try {
      const off = lines.map((l) => JSON.parse(l)).find((l) => /alert e-mail is off/.test(l.msg));
      expect(off).toMatchObject({ level: 'warn' });
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const { org } = await bootstrap(call);
      const entityId = '77777777-7777-4777-8777-777777777777';
      await gateway.publish(usageAlertEvent({ organisationId: org, entityId, groupValue: 'api_key=k9' }));
      const listed = await until(
        () => call('get', `/alerts?policy_id=${entityId}`),
        (res) => res.body.total === 1,
      );
      expect(listed.body.data[0].email).toEqual({ state: 'off', attempts: 0, sent_at: null, recipients: [] });
    } finally {
      await gateway.close();
      await app.stop();
    }
  });
});

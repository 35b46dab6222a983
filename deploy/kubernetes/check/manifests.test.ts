// The Kubernetes manifests as `pnpm test` holds them: every overlay renders with kubectl kustomize,
// every object validates against the pinned Kubernetes schemas, and the project's rules hold
// (rules.ts). The rules are shown to catch what they claim on mutated copies of a rendered overlay.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { APPS, type AppSpec, requiredSettings, type SettingsSchema } from './apps.js';
import { type K8sObject, kubectlAvailable, render } from './render.js';
import { checkRules, type RuleOptions } from './rules.js';
import { validateSchemas } from './schema.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const OVERLAYS = ['overlays/dev', 'overlays/production', 'examples/production-with-monitoring'];

// kubectl is on every machine of this project (`.ci/run` installs one where it is missing); a
// machine without it fails here rather than passing the manifests unchecked.
it('kubectl (with kustomize) is on PATH', () => {
  expect(kubectlAvailable(), 'install kubectl: the manifest checks render every overlay with it').toBe(true);
});

/** The dev overlay's secret values, by key: stand-ins for production's out-of-band Secrets. */
function secretSamples(dev: readonly K8sObject[]): Record<string, string> {
  const samples: Record<string, string> = {};
  for (const secret of dev.filter((o) => o.kind === 'Secret'))
    for (const [key, value] of Object.entries(secret.data ?? {}))
      samples[key] = Buffer.from(String(value), 'base64').toString('utf8');
  return samples;
}

const clone = (objects: readonly K8sObject[]): K8sObject[] => structuredClone(objects) as K8sObject[];

function deployment(objects: K8sObject[], name: string): K8sObject {
  const found = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
  if (!found) throw new Error(`no Deployment ${name}`);
  return found;
}

const container = (objects: K8sObject[], name: string) =>
  deployment(objects, name).spec.template.spec.containers[0];

describe('deploy/kubernetes', () => {
  const rendered = new Map<string, K8sObject[]>();
  let options: RuleOptions;

  beforeAll(() => {
    for (const overlay of OVERLAYS) rendered.set(overlay, render(`${root}${overlay}`));
    options = { apps: APPS, secretSamples: secretSamples(rendered.get('overlays/dev') ?? []) };
  });

  describe.each(OVERLAYS)('%s', (overlay) => {
    it('renders every app with its Service, PodDisruptionBudget and ConfigMap', () => {
      const objects = rendered.get(overlay) ?? [];
      for (const app of APPS) {
        for (const kind of [
          'Deployment',
          'Service',
          'PodDisruptionBudget',
          'ServiceAccount',
          'NetworkPolicy',
        ])
          expect(
            objects.some((o) => o.kind === kind && o.metadata.name === app.name),
            `${kind}/${app.name}`,
          ).toBe(true);
        expect(
          objects.some((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith(`${app.name}-`)),
        ).toBe(true);
      }
    });

    it('validates against the pinned Kubernetes schemas', async () => {
      const objects = rendered.get(overlay) ?? [];
      const result = await validateSchemas(objects);
      expect(result.errors).toEqual([]);
      // Only custom resources lack a schema; the rules check those.
      expect([...new Set(result.unknown.map((o) => o.kind))]).toEqual(
        overlay.includes('monitoring') ? ['ServiceMonitor'] : [],
      );
    });

    it('keeps the project rules', () => {
      expect(checkRules(rendered.get(overlay) ?? [], options)).toEqual([]);
    });
  });

  it('keeps secrets out of git in production: no Secret object is rendered there', () => {
    expect((rendered.get('overlays/production') ?? []).filter((o) => o.kind === 'Secret')).toEqual([]);
  });

  it('runs Postgres, Redis and NATS in the dev overlay only', () => {
    const names = (overlay: string) =>
      (rendered.get(overlay) ?? []).filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
    expect(names('overlays/dev')).toEqual(
      expect.arrayContaining(['aigw-postgres', 'aigw-redis', 'aigw-nats']),
    );
    expect(names('overlays/production').sort()).toEqual([
      'aigw-control-plane',
      'aigw-gateway',
      'aigw-logger',
    ]);
  });

  describe('the rules catch', () => {
    const dev = () => clone(rendered.get('overlays/dev') ?? []);

    it('a missing probe', () => {
      const objects = dev();
      delete container(objects, 'aigw-gateway').readinessProbe;
      expect(checkRules(objects, options)).toEqual(
        expect.arrayContaining([
          'Deployment/aigw-gateway container gateway: no readinessProbe',
          'Deployment/aigw-gateway container gateway: readinessProbe must GET /readyz on the http port',
        ]),
      );
    });

    it('a probe on the wrong route', () => {
      const objects = dev();
      container(objects, 'aigw-logger').livenessProbe.httpGet.path = '/readyz';
      expect(checkRules(objects, options)).toEqual([
        'Deployment/aigw-logger container logger: livenessProbe must GET /healthz on the http port',
      ]);
    });

    it('a missing limit', () => {
      const objects = dev();
      delete container(objects, 'aigw-control-plane').resources.limits.memory;
      expect(checkRules(objects, options)).toEqual([
        'Deployment/aigw-control-plane container control-plane: no limits.memory',
      ]);
    });

    it('a weakened security context', () => {
      const objects = dev();
      const sc = container(objects, 'aigw-postgres').securityContext;
      sc.readOnlyRootFilesystem = false;
      sc.capabilities = { drop: ['NET_RAW'] };
      expect(checkRules(objects, options)).toEqual([
        'Deployment/aigw-postgres container postgres: readOnlyRootFilesystem is not true',
        'Deployment/aigw-postgres container postgres: capabilities do not drop ALL',
      ]);
    });

    it('a required setting removed from the manifests', () => {
      const objects = dev();
      const logger = container(objects, 'aigw-logger');
      logger.env = logger.env.filter((e: { name: string }) => e.name !== 'DATABASE_URL');
      expect(checkRules(objects, options)).toEqual(
        expect.arrayContaining([
          'Deployment/aigw-logger container logger: required setting DATABASE_URL is in neither its ConfigMap nor its Secret',
        ]),
      );
    });

    it('a setting required only with another one (the snapshot token with a control plane)', () => {
      const objects = dev();
      const gateway = container(objects, 'aigw-gateway');
      gateway.env = gateway.env.filter((e: { name: string }) => e.name !== 'SNAPSHOT_SERVICE_TOKEN');
      const problems = checkRules(objects, options);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        /^Deployment\/aigw-gateway container gateway: setting SNAPSHOT_SERVICE_TOKEN: /,
      );
    });

    it('a new required setting an app schema gains without a manifest entry', () => {
      const base = APPS.find((a) => a.app === 'logger') as AppSpec;
      const settings = (base.settings as unknown as z.ZodObject).extend({ NEW_REQUIRED_URL: z.string() });
      const apps = APPS.map((a) =>
        a === base ? { ...a, settings: settings as unknown as SettingsSchema } : a,
      );
      expect(requiredSettings(settings as unknown as SettingsSchema)).toContain('NEW_REQUIRED_URL');
      expect(checkRules(dev(), { ...options, apps })).toEqual(
        expect.arrayContaining([
          'Deployment/aigw-logger container logger: required setting NEW_REQUIRED_URL is in neither its ConfigMap nor its Secret',
        ]),
      );
    });

    it('a secret in a ConfigMap', () => {
      const objects = dev();
      const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('aigw-gateway-'));
      if (!cm) throw new Error('no gateway ConfigMap');
      cm.data.MASTER_KEY = 'x';
      expect(checkRules(objects, options)).toEqual([
        `ConfigMap/${cm.metadata.name}: MASTER_KEY is a secret; put it in a Secret`,
      ]);
    });

    it('a grace period shorter than the drain', () => {
      const objects = dev();
      deployment(objects, 'aigw-gateway').spec.template.spec.terminationGracePeriodSeconds = 30;
      expect(checkRules(objects, options)).toEqual([
        'Deployment/aigw-gateway container gateway: terminationGracePeriodSeconds 30 < preStop + SHUTDOWN_TIMEOUT_MS + 2 s (32)',
      ]);
    });

    it('a Service port that is not the app default', () => {
      const objects = dev();
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'aigw-logger');
      if (!service) throw new Error('no logger Service');
      service.spec.ports[1].port = 9090;
      expect(checkRules(objects, options)).toEqual([
        'Service/aigw-logger: port grpc must be 50052 (GRPC_PORT)',
      ]);
    });

    it('a gateway egress rule that reaches Postgres', () => {
      const objects = dev();
      const policy = objects.find(
        (o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'aigw-postgres-egress',
      );
      if (!policy) throw new Error('no postgres egress policy');
      policy.spec.podSelector.matchExpressions[0].values.push('aigw-gateway');
      expect(checkRules(objects, options)).toEqual([
        'NetworkPolicy/aigw-postgres-egress: the gateway may reach Postgres (port 5432)',
        'NetworkPolicy/aigw-postgres-egress: the gateway may reach the Postgres pods',
      ]);
    });

    it('another app exposed', () => {
      const objects = dev();
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'aigw-control-plane');
      if (!service) throw new Error('no control-plane Service');
      service.spec.type = 'LoadBalancer';
      expect(checkRules(objects, options)).toEqual([
        'Service/aigw-control-plane: only the gateway is exposed (type LoadBalancer)',
      ]);
    });

    it('a last-known-good snapshot off the emptyDir, and an image without a tag', () => {
      const objects = dev();
      const gateway = container(objects, 'aigw-gateway');
      gateway.volumeMounts = gateway.volumeMounts.filter((m: { name: string }) => m.name !== 'state');
      container(objects, 'aigw-logger').image = 'aigw/logger';
      expect(checkRules(objects, options)).toEqual([
        'Deployment/aigw-logger container logger: image aigw/logger has no explicit tag or digest',
        'gateway: SNAPSHOT_LKG_PATH must lie on an emptyDir volume',
        'gateway: EVENT_SPOOL_DIR must lie on an emptyDir volume',
      ]);
    });
  });

  it('the rules catch a migration Job whose ConfigMap the first release step would not apply', () => {
    const objects = clone(rendered.get('overlays/production') ?? []);
    const cm = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('aigw-control-plane-'),
    );
    if (!cm?.metadata.labels) throw new Error('no labelled control-plane ConfigMap');
    delete cm.metadata.labels['aigw.io/step'];
    expect(checkRules(objects, options)).toEqual([
      `Job/aigw-control-plane-migrate: ConfigMap ${cm.metadata.name} lacks aigw.io/step=migrate (the first step would not create it)`,
    ]);
  });

  it('validates: a wrong type fails the schema check', async () => {
    const objects = clone(rendered.get('overlays/dev') ?? []);
    deployment(objects, 'aigw-gateway').spec.replicas = 'two';
    const { errors } = await validateSchemas(objects);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Deployment\/aigw-gateway: /);
  });
});

// The project's rules for rendered manifests (docs/deploy.md "What the tests check"). Each returns
// problems as sentences; none echoes a setting's value (secrets render into the same objects).
import { type AppSpec, requiredSettings, settingDefault } from './apps.js';
import type { K8sObject } from './render.js';

export interface RuleOptions {
  readonly apps: readonly AppSpec[];
  /**
   * Stand-ins for secret keys whose Secret is not rendered (production creates its Secrets out of
   * band), by key name, so the settings still parse as a whole: the dev overlay's values.
   */
  readonly secretSamples?: Readonly<Record<string, string>>;
}

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML (schema.ts types them).
type Any = any;

/** Settings that are credentials, or URLs that carry them: a Secret's, never a ConfigMap's. */
export const SECRET_SETTING = /(TOKEN|KEY|SECRET|PASSWORD)$|^(DATABASE|REDIS|NATS)_URL$/;

const PRIVATE_PORT_POSTGRES = 5432;

interface PodTemplate {
  readonly owner: K8sObject;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly spec: Any;
  /** Deployments and StatefulSets serve until stopped: they need probes. Jobs end. */
  readonly longRunning: boolean;
}

function podTemplates(objects: readonly K8sObject[]): PodTemplate[] {
  const templates: PodTemplate[] = [];
  for (const owner of objects) {
    const template =
      owner.kind === 'CronJob' ? owner.spec?.jobTemplate?.spec?.template : owner.spec?.template;
    if (!['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(owner.kind) || !template)
      continue;
    templates.push({
      owner,
      labels: template.metadata?.labels ?? {},
      annotations: template.metadata?.annotations ?? {},
      spec: template.spec ?? {},
      longRunning: owner.kind !== 'Job' && owner.kind !== 'CronJob',
    });
  }
  return templates;
}

function containersOf(spec: Any): Any[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
}

const where = (t: PodTemplate, c: Any) => `${t.owner.kind}/${t.owner.metadata.name} container ${c.name}`;

/** Probes (long-running pods), requests and limits, the restricted security context, a pinned image. */
export function checkContainers(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const t of podTemplates(objects)) {
    const pod = t.spec.securityContext ?? {};
    for (const c of containersOf(t.spec)) {
      const at = where(t, c);
      const isInit = (t.spec.initContainers ?? []).includes(c);
      if (t.longRunning && !isInit) {
        for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
          if (!c[probe]) problems.push(`${at}: no ${probe}`);
      }
      for (const kind of ['requests', 'limits'])
        for (const resource of ['cpu', 'memory'])
          if (c.resources?.[kind]?.[resource] === undefined) problems.push(`${at}: no ${kind}.${resource}`);
      const sc = c.securityContext ?? {};
      if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true) problems.push(`${at}: runAsNonRoot is not true`);
      if ((sc.runAsUser ?? pod.runAsUser) === 0) problems.push(`${at}: runs as uid 0`);
      if (sc.readOnlyRootFilesystem !== true) problems.push(`${at}: readOnlyRootFilesystem is not true`);
      if (sc.allowPrivilegeEscalation !== false)
        problems.push(`${at}: allowPrivilegeEscalation is not false`);
      if (sc.privileged === true) problems.push(`${at}: privileged`);
      if (!(sc.capabilities?.drop ?? []).includes('ALL'))
        problems.push(`${at}: capabilities do not drop ALL`);
      if (sc.capabilities?.add?.length) problems.push(`${at}: adds capabilities`);
      if ((sc.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault')
        problems.push(`${at}: seccompProfile is not RuntimeDefault`);
      if (!pinnedImage(String(c.image ?? '')))
        problems.push(`${at}: image ${c.image} has no explicit tag or digest`);
    }
  }
  return problems;
}

/** `name:tag` (not latest) or `name@sha256:…`. */
export function pinnedImage(image: string): boolean {
  if (/@sha256:[a-f0-9]{64}$/.test(image)) return true;
  const lastSlash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  if (colon <= lastSlash) return false;
  const tag = image.slice(colon + 1);
  return tag !== '' && tag !== 'latest';
}

function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

/** ConfigMaps and Secrets are renamed by kustomize (hash suffix); references follow the new name. */
function secretValue(secret: K8sObject | undefined, key: string): string | undefined {
  if (!secret) return undefined;
  if (secret.stringData?.[key] !== undefined) return String(secret.stringData[key]);
  if (secret.data?.[key] !== undefined)
    return Buffer.from(String(secret.data[key]), 'base64').toString('utf8');
  return undefined;
}

interface ResolvedEnv {
  /** Every variable the container gets, and where from. */
  readonly sources: Map<string, 'configmap' | 'secret' | 'value' | 'field'>;
  /** Their values (secret stand-ins where the Secret is not rendered). */
  readonly values: Record<string, string>;
  readonly problems: string[];
}

function resolveEnv(objects: readonly K8sObject[], c: Any, at: string, options: RuleOptions): ResolvedEnv {
  const sources = new Map<string, 'configmap' | 'secret' | 'value' | 'field'>();
  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) {
      const cm = find(objects, 'ConfigMap', from.configMapRef.name);
      if (!cm) {
        problems.push(`${at}: envFrom ConfigMap ${from.configMapRef.name} is not in the manifests`);
        continue;
      }
      for (const [key, value] of Object.entries(cm.data ?? {})) {
        sources.set(key, 'configmap');
        values[key] = String(value);
      }
    } else if (from.secretRef) {
      // Keys of an out-of-band Secret cannot be known: name each one with secretKeyRef instead.
      problems.push(`${at}: envFrom secretRef ${from.secretRef.name}: list its keys with env secretKeyRef`);
    }
  }
  for (const e of c.env ?? []) {
    if (e.value !== undefined) {
      sources.set(e.name, 'value');
      values[e.name] = String(e.value);
    } else if (e.valueFrom?.secretKeyRef) {
      const { name, key } = e.valueFrom.secretKeyRef;
      const secret = find(objects, 'Secret', name);
      const value = secretValue(secret, key) ?? (secret ? undefined : options.secretSamples?.[key]);
      if (secret && value === undefined && e.valueFrom.secretKeyRef.optional !== true)
        problems.push(`${at}: Secret ${name} has no key ${key}`);
      sources.set(e.name, 'secret');
      if (value !== undefined) values[e.name] = value;
      else if (!secret && e.valueFrom.secretKeyRef.optional !== true)
        problems.push(
          `${at}: no stand-in value for secret key ${key} (Secret ${name} is created out of band)`,
        );
    } else if (e.valueFrom?.configMapKeyRef) {
      const { name, key } = e.valueFrom.configMapKeyRef;
      const value = find(objects, 'ConfigMap', name)?.data?.[key];
      if (value === undefined) problems.push(`${at}: ConfigMap ${name} has no key ${key}`);
      else {
        sources.set(e.name, 'configmap');
        values[e.name] = String(value);
      }
    } else if (e.valueFrom?.fieldRef) {
      sources.set(e.name, 'field');
      values[e.name] = `field-${e.valueFrom.fieldRef.fieldPath}`;
    }
  }
  return { sources, values, problems };
}

/** Secrets only in Secrets: no ConfigMap key and no plain env value holds a credential. */
export function checkSecretsPlacement(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const cm of objects.filter((o) => o.kind === 'ConfigMap'))
    for (const key of Object.keys(cm.data ?? {}))
      if (SECRET_SETTING.test(key))
        problems.push(`ConfigMap/${cm.metadata.name}: ${key} is a secret; put it in a Secret`);
  for (const t of podTemplates(objects))
    for (const c of containersOf(t.spec))
      for (const e of c.env ?? [])
        if (e.value !== undefined && SECRET_SETTING.test(e.name))
          problems.push(`${where(t, c)}: ${e.name} is a secret given as a plain value; use a secretKeyRef`);
  return problems;
}

function appContainer(objects: readonly K8sObject[], app: AppSpec): { t: PodTemplate; c: Any } | undefined {
  const t = podTemplates(objects).find(
    (p) => p.owner.kind === 'Deployment' && p.owner.metadata.name === app.name,
  );
  const c = t?.spec.containers?.[0];
  return t && c ? { t, c } : undefined;
}

/** The settings one container gets, checked against the app's zod schema. */
function checkSettings(
  objects: readonly K8sObject[],
  app: AppSpec,
  t: PodTemplate,
  c: Any,
  options: RuleOptions,
): { problems: string[]; values: Record<string, string> } {
  const at = where(t, c);
  const env = resolveEnv(objects, c, at, options);
  const problems = [...env.problems];
  for (const name of requiredSettings(app.settings))
    if (!env.sources.has(name))
      problems.push(`${at}: required setting ${name} is in neither its ConfigMap nor its Secret`);
  // Empty means unset, as loadConfig reads it.
  const cleaned = Object.fromEntries(Object.entries(env.values).filter(([, v]) => v !== ''));
  const result = app.settings.safeParse(cleaned);
  if (!result.success)
    for (const issue of result.error.issues)
      problems.push(`${at}: setting ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
  return { problems, values: cleaned };
}

function preStopSeconds(c: Any): number | undefined {
  const preStop = c.lifecycle?.preStop;
  if (preStop?.sleep?.seconds !== undefined) return Number(preStop.sleep.seconds);
  const command: string[] | undefined = preStop?.exec?.command;
  if (command?.[0] === 'sleep' && command.length === 2) return Number(command[1]);
  return undefined;
}

function probePath(probe: Any): { path?: string; port?: unknown } {
  return { path: probe?.httpGet?.path, port: probe?.httpGet?.port };
}

/** Everything each app needs: settings, probes on its routes, drain timing, ports, PDB, metrics. */
export function checkApps(objects: readonly K8sObject[], options: RuleOptions): string[] {
  const problems: string[] = [];
  for (const app of options.apps) {
    const found = appContainer(objects, app);
    if (!found) {
      problems.push(`${app.app}: no Deployment ${app.name}`);
      continue;
    }
    const { t, c } = found;
    const at = where(t, c);
    const settings = checkSettings(objects, app, t, c, options);
    problems.push(...settings.problems);
    // One setting as the app reads it (its own field's parse: the rest may not parse).
    const setting = (name: string) => {
      const parsed = app.settings.shape[name]?.safeParse(settings.values[name]);
      return parsed?.success ? parsed.data : settingDefault(app.settings, name);
    };

    // Probes on the health routes (packages/runtime/src/health.ts), on the http port.
    const httpOk = (port: unknown) => port === 'http' || port === setting('PORT');
    for (const [probe, path] of [
      ['startupProbe', '/healthz'],
      ['livenessProbe', '/healthz'],
      ['readinessProbe', '/readyz'],
    ] as const) {
      const p = probePath(c[probe]);
      if (p.path !== path || !httpOk(p.port))
        problems.push(`${at}: ${probe} must GET ${path} on the http port`);
    }

    // Drain: the pod is killed only after preStop + the app's own deadline (runMain: SHUTDOWN_TIMEOUT_MS + 2 s).
    const sleep = preStopSeconds(c);
    if (sleep === undefined)
      problems.push(`${at}: no preStop sleep (endpoints must drop the pod before SIGTERM)`);
    const needed = (sleep ?? 0) + Number(setting('SHUTDOWN_TIMEOUT_MS')) / 1000 + 2;
    const grace = t.spec.terminationGracePeriodSeconds ?? 30;
    if (grace < needed)
      problems.push(
        `${at}: terminationGracePeriodSeconds ${grace} < preStop + SHUTDOWN_TIMEOUT_MS + 2 s (${needed})`,
      );

    // Ports: container and Service ports named as the apps' settings say, at their values.
    const service = find(objects, 'Service', app.name);
    if (!service) problems.push(`${app.app}: no Service ${app.name}`);
    for (const [portName, settingName] of Object.entries(app.ports)) {
      const expected = Number(setting(settingName));
      const containerPort = (c.ports ?? []).find((p: Any) => p.name === portName);
      if (containerPort?.containerPort !== expected)
        problems.push(`${at}: container port ${portName} must be ${expected} (${settingName})`);
      const servicePort = (service?.spec?.ports ?? []).find((p: Any) => p.name === portName);
      if (service && servicePort?.port !== expected)
        problems.push(`Service/${app.name}: port ${portName} must be ${expected} (${settingName})`);
      if (servicePort && servicePort.targetPort !== portName && servicePort.targetPort !== expected)
        problems.push(`Service/${app.name}: port ${portName} must target the container's ${portName} port`);
    }
    for (const p of service?.spec?.ports ?? [])
      if (!(p.name in app.ports))
        problems.push(`Service/${app.name}: port ${p.name} is not one the app listens on`);

    // A disruption budget covering the pods.
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && selects(o.spec?.selector, t.labels));
    if (!pdb) problems.push(`${app.app}: no PodDisruptionBudget selects its pods`);

    // /metrics for annotation-based scraping (ServiceMonitors use the Service's http port).
    const a = t.annotations;
    if (
      a['prometheus.io/scrape'] !== 'true' ||
      a['prometheus.io/path'] !== '/metrics' ||
      Number(a['prometheus.io/port']) !== Number(setting('PORT'))
    )
      problems.push(
        `${at}: prometheus.io/scrape, /path (/metrics) and /port (the http port) annotations missing or wrong`,
      );

    // Migrations: a Job running the app's migrate command before the rollout, or at start.
    if (app.migrateCommand) {
      const jobs = podTemplates(objects).filter(
        (p) =>
          p.owner.kind === 'Job' &&
          (p.spec.containers ?? []).some((jc: Any) =>
            (jc.command ?? []).join(' ').includes(app.migrateCommand as string),
          ),
      );
      if (jobs.length === 0 && setting('MIGRATE_ON_START') !== true)
        problems.push(`${app.app}: migrations run neither in a Job (${app.migrateCommand}) nor at start`);
      // The Job loads the app's settings: they must parse there too.
      for (const job of jobs)
        for (const jc of job.spec.containers ?? [])
          problems.push(...checkSettings(objects, app, job, jc, options).problems);
      // `kubectl apply -l aigw.io/step=migrate` (the release's first step) must bring what the Job uses.
      for (const job of jobs) problems.push(...checkMigrateStep(objects, job));
    } else if (app.migrates && setting('MIGRATE_ON_START') !== true) {
      problems.push(`${app.app}: MIGRATE_ON_START is off and the app has no migrate command`);
    }

    if (app.app === 'gateway') problems.push(...checkGateway(objects, t, c, setting));
  }
  return problems;
}

export const STEP_LABEL = 'aigw.io/step';

/** The Job, its ServiceAccount and ConfigMaps carry the migrate step label (docs/deploy.md "Deploying"). */
function checkMigrateStep(objects: readonly K8sObject[], job: PodTemplate): string[] {
  const problems: string[] = [];
  const labelled = (o: K8sObject | undefined) => o?.metadata.labels?.[STEP_LABEL] === 'migrate';
  const at = `Job/${job.owner.metadata.name}`;
  if (!labelled(job.owner)) problems.push(`${at}: no ${STEP_LABEL}=migrate label`);
  const account = job.spec.serviceAccountName;
  if (account && !labelled(find(objects, 'ServiceAccount', account)))
    problems.push(
      `${at}: ServiceAccount ${account} lacks ${STEP_LABEL}=migrate (the first step would not create it)`,
    );
  for (const c of job.spec.containers ?? [])
    for (const from of c.envFrom ?? [])
      if (from.configMapRef && !labelled(find(objects, 'ConfigMap', from.configMapRef.name)))
        problems.push(
          `${at}: ConfigMap ${from.configMapRef.name} lacks ${STEP_LABEL}=migrate (the first step would not create it)`,
        );
  return problems;
}

/** The gateway scales with an HPA and keeps its spool and last-known-good snapshot on an emptyDir. */
function checkGateway(
  objects: readonly K8sObject[],
  t: PodTemplate,
  c: Any,
  setting: (n: string) => unknown,
): string[] {
  const problems: string[] = [];
  const hpa = objects.find(
    (o) =>
      o.kind === 'HorizontalPodAutoscaler' &&
      o.spec?.scaleTargetRef?.kind === 'Deployment' &&
      o.spec?.scaleTargetRef?.name === t.owner.metadata.name,
  );
  if (!hpa) problems.push('gateway: no HorizontalPodAutoscaler scales it');
  const emptyDirs = new Set((t.spec.volumes ?? []).filter((v: Any) => v.emptyDir).map((v: Any) => v.name));
  const mounts: string[] = (c.volumeMounts ?? [])
    .filter((m: Any) => emptyDirs.has(m.name))
    .map((m: Any) => m.mountPath);
  for (const name of ['SNAPSHOT_LKG_PATH', 'EVENT_SPOOL_DIR']) {
    const path = setting(name);
    if (
      typeof path !== 'string' ||
      !mounts.some((m) => path === m || path.startsWith(`${m.replace(/\/$/, '')}/`))
    )
      problems.push(`gateway: ${name} must lie on an emptyDir volume`);
  }
  return problems;
}

/** Whether a label selector (matchLabels, matchExpressions) selects these labels. */
export function selects(selector: Any, labels: Record<string, string>): boolean {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    const value = labels[e.key];
    if (e.operator === 'In' && !(has && e.values.includes(value))) return false;
    if (e.operator === 'NotIn' && has && e.values.includes(value)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/**
 * Who talks to whom: a default deny; the gateway's egress never reaches Postgres (every rule names
 * its ports, none is Postgres's, none targets Postgres pods); only the gateway is exposed.
 */
export function checkNetwork(objects: readonly K8sObject[], options: RuleOptions): string[] {
  const problems: string[] = [];
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const denyAll = policies.some(
    (p) =>
      Object.keys(p.spec?.podSelector ?? {}).length === 0 &&
      ['Ingress', 'Egress'].every((type) => (p.spec?.policyTypes ?? []).includes(type)) &&
      !p.spec?.ingress?.length &&
      !p.spec?.egress?.length,
  );
  if (!denyAll)
    problems.push('no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)');

  const gateway = options.apps.find((a) => a.app === 'gateway');
  const gatewayPods = gateway && appContainer(objects, gateway)?.t.labels;
  const postgresLabels = podTemplates(objects)
    .filter((t) =>
      (t.spec.containers ?? []).some((c: Any) =>
        (c.ports ?? []).some((p: Any) => p.containerPort === PRIVATE_PORT_POSTGRES),
      ),
    )
    .map((t) => t.labels);
  if (gatewayPods) {
    for (const policy of policies) {
      if (
        !(policy.spec?.policyTypes ?? []).includes('Egress') ||
        !selects(policy.spec?.podSelector, gatewayPods)
      )
        continue;
      for (const rule of policy.spec?.egress ?? []) {
        const ports: Any[] = rule.ports ?? [];
        if (ports.length === 0)
          problems.push(`NetworkPolicy/${policy.metadata.name}: a gateway egress rule allows every port`);
        if (ports.some((p) => p.port === PRIVATE_PORT_POSTGRES || p.port === 'postgres'))
          problems.push(`NetworkPolicy/${policy.metadata.name}: the gateway may reach Postgres (port 5432)`);
        for (const to of rule.to ?? [])
          if (
            to.podSelector &&
            !to.namespaceSelector &&
            postgresLabels.some((l) => selects(to.podSelector, l))
          )
            problems.push(`NetworkPolicy/${policy.metadata.name}: the gateway may reach the Postgres pods`);
      }
    }
  }
  // Other apps admit only named peers (a rule without `from` admits anyone).
  for (const app of options.apps.filter((a) => a.app !== 'gateway')) {
    const labels = appContainer(objects, app)?.t.labels;
    if (!labels) continue;
    for (const policy of policies) {
      if (!selects(policy.spec?.podSelector, labels)) continue;
      for (const rule of policy.spec?.ingress ?? [])
        if (!rule.from?.length)
          problems.push(`NetworkPolicy/${policy.metadata.name}: ${app.app} admits traffic from anywhere`);
    }
  }
  // Only the gateway is exposed outside the cluster.
  for (const s of objects.filter((o) => o.kind === 'Service'))
    if (['LoadBalancer', 'NodePort'].includes(s.spec?.type) && s.metadata.name !== gateway?.name)
      problems.push(`Service/${s.metadata.name}: only the gateway is exposed (type ${s.spec.type})`);
  for (const ingress of objects.filter((o) => o.kind === 'Ingress'))
    for (const rule of ingress.spec?.rules ?? [])
      for (const path of rule.http?.paths ?? [])
        if (path.backend?.service?.name !== gateway?.name)
          problems.push(
            `Ingress/${ingress.metadata.name}: routes to ${path.backend?.service?.name}, not the gateway`,
          );
  return problems;
}

/** ServiceMonitors (no schema in kubernetes-models): each scrapes an app Service's http port at /metrics. */
export function checkServiceMonitors(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  const services = objects.filter((o) => o.kind === 'Service');
  for (const sm of objects.filter((o) => o.kind === 'ServiceMonitor')) {
    const at = `ServiceMonitor/${sm.metadata.name}`;
    if (sm.apiVersion !== 'monitoring.coreos.com/v1')
      problems.push(`${at}: apiVersion must be monitoring.coreos.com/v1`);
    const targets = services.filter((s) => selects(sm.spec?.selector, s.metadata.labels ?? {}));
    if (targets.length === 0) problems.push(`${at}: selects no Service`);
    for (const e of sm.spec?.endpoints ?? [])
      if (
        e.path !== '/metrics' ||
        !targets.every((s) => (s.spec?.ports ?? []).some((p: Any) => p.name === e.port))
      )
        problems.push(`${at}: endpoints must scrape /metrics on a port the Service names`);
    if (!sm.spec?.endpoints?.length) problems.push(`${at}: no endpoints`);
  }
  return problems;
}

/** Every rule, over one rendered overlay. */
export function checkRules(objects: readonly K8sObject[], options: RuleOptions): string[] {
  return [
    ...checkContainers(objects),
    ...checkSecretsPlacement(objects),
    ...checkApps(objects, options),
    ...checkNetwork(objects, options),
    ...checkServiceMonitors(objects),
  ];
}

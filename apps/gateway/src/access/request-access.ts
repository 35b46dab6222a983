// Control-plane mode, before anything is sent: authenticate, merge metadata defaults, and resolve
// where the request goes (saved or inline config with its saved guardrails, a deployment's config,
// `@slug`, virtual key, or the provider headers).
import type { IncomingHttpHeaders } from 'node:http';
import { createJwtVerifier, type JwtSettings, type JwtVerifier } from '@aigw/jwt-auth';
import type { Logger } from '@aigw/runtime';
import { gatewayErrorWithHeaders } from '../errors.js';
import { parseInlineConfig } from '../request/config-header.js';
import { H, type ServiceHeaders } from '../request/service-headers.js';
import type { Snapshot, SnapshotSource } from '../snapshot/index.js';
import type { AccessRoute, RequestAccess } from './access-types.js';
import { createAuthenticate } from './authenticate.js';
import { credentialRoute } from './credential-route.js';
import { CredentialStore } from './credentials.js';
import { deploymentConfigId, findDeployment } from './deployments.js';
import { GuardrailHeaderStore } from './guardrail-headers.js';
import { type Identity, mergedMetadata } from './identity.js';
import { createManagedResolver, type ManagedRequest, type ManagedTarget } from './managed-provider.js';
import { SavedConfigs } from './saved-config.js';
import { resolveGuardrailRefs } from './saved-guardrails.js';
import { targetLimitScope } from './target-limits.js';

export interface AccessDeps {
  readonly snapshots: SnapshotSource;
  /** Null when token authentication is off. */
  readonly jwt: JwtVerifier | null;
  readonly masterKey: string | undefined;
  readonly log: Logger;
}

/**
 * Control-plane access in two steps the request pipeline runs apart, so that a key's scopes are
 * checked between them: who calls (`identify`), then where the request goes (`resolve`). Both read
 * the one snapshot the pipeline took for the request.
 */
export interface AccessResolver {
  current(): Snapshot;
  /** API keys resolve synchronously; only a JWT waits (for its key set). */
  identify(snapshot: Snapshot, headers: IncomingHttpHeaders): Identity | Promise<Identity>;
  resolve(
    snapshot: Snapshot,
    identity: Identity,
    headers: IncomingHttpHeaders,
    service: ServiceHeaders,
  ): RequestAccess;
}

/**
 * The access resolver of a gateway process, from its settings: HTTP and WebSocket requests share it,
 * and with it one JWKS cache and one cache of opened credentials.
 */
export function accessFromConfig(
  config: JwtSettings & { readonly MASTER_KEY?: string | undefined },
  snapshots: SnapshotSource,
  log: Logger,
): AccessResolver {
  return createRequestAccess({
    snapshots,
    jwt: createJwtVerifier(config),
    masterKey: config.MASTER_KEY,
    log,
  });
}

export function createRequestAccess(deps: AccessDeps): AccessResolver {
  const authenticate = createAuthenticate(deps.jwt);
  const credentials = new CredentialStore(deps.masterKey, deps.log);
  const guardrailHeaders = new GuardrailHeaderStore(deps.masterKey, deps.log);
  const configs = new SavedConfigs(guardrailHeaders);
  /** A saved config by id or slug; failing that, a deployment's slug names the config it runs. */
  const savedOrDeployment = (snapshot: Snapshot, workspaceId: string, ref: string, param: string) => {
    try {
      return configs.resolve(snapshot, workspaceId, ref, param);
    } catch (err) {
      const deployment = findDeployment(snapshot, workspaceId, ref);
      if (!deployment) throw err;
      return configs.resolve(snapshot, workspaceId, deployment.body.value.configId, param);
    }
  };
  const resolveManaged = createManagedResolver(credentials);

  const resolve = (
    snapshot: Snapshot,
    identity: Identity,
    headers: IncomingHttpHeaders,
    service: ServiceHeaders,
  ) => {
    const workspaceId = identity.workspace.id;
    const defaults = identity.apiKey?.body.value.defaults;
    const chosen = credentialRoute(
      headers,
      service,
      defaults?.configId ?? '',
      defaults?.configEnforced === true,
    );
    const managed = (request: ManagedRequest) => resolveManaged(snapshot, workspaceId, request);
    let fromHeaders: ManagedTarget | undefined;
    if (chosen.kind === 'virtual_key')
      fromHeaders = managed({ virtualKey: chosen.slug, param: H.virtualKey });
    else if (service.provider?.startsWith('@'))
      fromHeaders = managed({ provider: service.provider, param: H.provider });
    else if (chosen.kind === 'config' || chosen.kind === 'deployment') {
      const virtualKey = (headers[H.virtualKey] as string | undefined)?.trim();
      if (virtualKey) fromHeaders = managed({ virtualKey, param: H.virtualKey });
    }
    let route: AccessRoute;
    if (chosen.kind === 'deployment') {
      const configId = deploymentConfigId(snapshot, workspaceId, chosen.ref, H.deployment);
      const saved = configs.resolve(snapshot, workspaceId, configId, H.deployment);
      const config = resolveGuardrailRefs(
        saved.config,
        snapshot,
        identity.organisation.id,
        workspaceId,
        guardrailHeaders,
      );
      route = { kind: 'config', config, saved };
    } else if (chosen.kind === 'config') {
      const saved = chosen.value.startsWith('{')
        ? undefined
        : savedOrDeployment(
            snapshot,
            workspaceId,
            chosen.value,
            chosen.fromKeyDefault ? 'api_key.defaults.config_id' : H.config,
          );
      const parsed = saved?.config ?? parseInlineConfig(chosen.value, 'managed');
      const config = resolveGuardrailRefs(
        parsed,
        snapshot,
        identity.organisation.id,
        workspaceId,
        guardrailHeaders,
      );
      route = { kind: 'config', config, saved };
    } else if (fromHeaders) {
      route = { kind: 'managed', target: fromHeaders };
    } else {
      route = { kind: 'headers' };
    }
    const access: RequestAccess = {
      snapshot,
      identity,
      metadata: mergedMetadata(identity, service.metadata),
      captureBodies: identity.workspace.body.value.settings?.disableBodyLogging !== true,
      route,
      leaves: {
        fromHeaders,
        resolve: managed,
        targetLimits: (target, model) => targetLimitScope(access, target, model),
      },
    };
    return access;
  };

  return {
    current: () => {
      // Until the first snapshot arrives every key would read as unknown: a 401 that SDKs never retry.
      if (deps.snapshots.loaded === false) throw notLoaded();
      return deps.snapshots.current();
    },
    identify: authenticate,
    resolve,
  };
}

function notLoaded(): Error {
  return gatewayErrorWithHeaders(
    'snapshot_not_loaded',
    'the gateway is starting and has not loaded its keys and providers yet: retry shortly',
    { 'retry-after': '1' },
  );
}

// Managed providers: `@<slug>` (a Provider of the key's workspace, credentials from it or its
// Integration) and the legacy virtual key (resolved to the provider it was migrated to, or its own
// credentials) become the provider type, opened credentials, options and model allow-lists.
import { EntityKind, EntityStatus, type IntegrationWorkspace } from '@aigw/proto';
import { gatewayError } from '../errors.js';
import { mediaModel } from '../formats/index.js';
import { azureDeploymentOf } from '../providers/azure-openai.js';
import { getProvider } from '../providers/registry.js';
import type { CloudOptions, ProviderDefinition } from '../providers/types.js';
import type { EntityOf, Snapshot } from '../snapshot/index.js';
import type { CredentialStore, ProviderCredentials } from './credentials.js';
import { type EntityOptions, entityOptions, managedCloud } from './provider-options.js';

/** The saved entities a managed request used (request events, limits). */
export interface ManagedRef {
  /** Provider slug (without `@`) or virtual key slug. */
  readonly slug: string;
  readonly providerId: string;
  readonly integrationId: string;
  readonly virtualKeyId: string;
  readonly virtualKeySlug: string;
  readonly provider: EntityOf<'provider'> | undefined;
  readonly integration: EntityOf<'integration'> | undefined;
  readonly virtualKey: EntityOf<'virtualKey'> | undefined;
  readonly integrationWorkspace: IntegrationWorkspace | undefined;
}

export interface ManagedTarget {
  readonly provider: ProviderDefinition;
  /** The provider token (api_key credential). */
  readonly token: string | undefined;
  readonly options: EntityOptions;
  /** Bedrock access keys from the credentials. */
  readonly secrets: Pick<CloudOptions, 'bedrock'>;
  /** Secret custom headers of the credentials (lower-case names); they win over client headers. */
  readonly setHeaders: Readonly<Record<string, string>>;
  /** Every non-empty list must contain the model (provider's and integration's). */
  readonly allowedModels: readonly (readonly string[])[];
  readonly ref: ManagedRef;
}

export interface ManagedRequest {
  /** `@slug` (from x-service-provider or a config's `provider`) or a virtual key slug. */
  readonly provider?: string;
  readonly virtualKey?: string;
  /** Header or config path named in errors. */
  readonly param: string;
}

export function resolveManaged(
  snapshot: Snapshot,
  workspaceId: string,
  store: CredentialStore,
  request: ManagedRequest,
): ManagedTarget {
  const { param } = request;
  if (request.virtualKey !== undefined) {
    const vk = snapshot.bySlug(EntityKind.VIRTUAL_KEY, workspaceId, request.virtualKey) as
      | EntityOf<'virtualKey'>
      | undefined;
    if (vk?.body?.$case !== 'virtualKey') throw notFound(`virtual key "${request.virtualKey}"`, param);
    const v = vk.body.value;
    usable(v.status, v.expiresAtMs, `virtual key "${v.slug}"`, param);
    const extra = { virtualKeyId: vk.id, virtualKeySlug: v.slug, virtualKey: vk };
    if (v.providerId !== '') {
      const provider = snapshot.find(EntityKind.PROVIDER, 'provider', v.providerId);
      if (!provider || provider.workspaceId !== workspaceId) {
        throw notFound(`the provider of virtual key "${v.slug}"`, param);
      }
      return fromProvider(snapshot, workspaceId, store, provider, param, extra);
    }
    const type = providerType(v.aiProvider, param);
    const credentials = v.encryptedCredentials.length
      ? store.open('provider', vk.id, vk.version, v.encryptedCredentials)
      : undefined;
    return target(type, credentials, entityOptions(type.id, v.options), [v.allowedModels], param, {
      slug: v.slug,
      providerId: '',
      integrationId: '',
      provider: undefined,
      integration: undefined,
      integrationWorkspace: undefined,
      ...extra,
    });
  }
  const slug = (request.provider ?? '').replace(/^@/, '');
  const provider = snapshot.bySlug(EntityKind.PROVIDER, workspaceId, slug) as
    | EntityOf<'provider'>
    | undefined;
  if (provider?.body?.$case !== 'provider') throw notFound(`provider @${slug}`, param);
  return fromProvider(snapshot, workspaceId, store, provider, param, {
    virtualKeyId: '',
    virtualKeySlug: '',
    virtualKey: undefined,
  });
}

/**
 * `resolveManaged` with its answers kept per snapshot, workspace and name: a busy key names the same
 * provider on every request, and resolving it walks provider, integration, options and allow-lists.
 * A new snapshot starts afresh (any entity change makes one); an answer is not reused past the
 * expiry of the provider or virtual key it came from. Refusals are not kept (they throw).
 */
export function createManagedResolver(store: CredentialStore) {
  type Kept = { readonly target: ManagedTarget; readonly validUntil: number };
  const bySnapshot = new WeakMap<
    Snapshot,
    Map<string, { providers: Map<string, Kept>; virtualKeys: Map<string, Kept> }>
  >();
  return (snapshot: Snapshot, workspaceId: string, request: ManagedRequest): ManagedTarget => {
    let workspaces = bySnapshot.get(snapshot);
    if (!workspaces) {
      workspaces = new Map();
      bySnapshot.set(snapshot, workspaces);
    }
    let named = workspaces.get(workspaceId);
    if (!named) {
      named = { providers: new Map(), virtualKeys: new Map() };
      workspaces.set(workspaceId, named);
    }
    const map = request.virtualKey !== undefined ? named.virtualKeys : named.providers;
    const name = request.virtualKey ?? request.provider ?? '';
    const kept = map.get(name);
    if (kept && Date.now() < kept.validUntil) return kept.target;
    const target = resolveManaged(snapshot, workspaceId, store, request);
    if (map.size >= MAX_KEPT_PER_WORKSPACE) map.clear();
    map.set(name, { target, validUntil: validUntil(target.ref) });
    return target;
  };
}

const MAX_KEPT_PER_WORKSPACE = 1024;

function validUntil(ref: ManagedRef): number {
  let until = Number.POSITIVE_INFINITY;
  for (const expiresAtMs of [ref.provider?.body.value.expiresAtMs, ref.virtualKey?.body.value.expiresAtMs]) {
    if (expiresAtMs !== undefined && expiresAtMs > 0 && expiresAtMs < until) until = expiresAtMs;
  }
  return until;
}

function fromProvider(
  snapshot: Snapshot,
  workspaceId: string,
  store: CredentialStore,
  entity: EntityOf<'provider'>,
  param: string,
  vk: Pick<ManagedRef, 'virtualKeyId' | 'virtualKeySlug' | 'virtualKey'>,
): ManagedTarget {
  const p = entity.body.value;
  const name = `provider @${p.slug}`;
  usable(p.status, p.expiresAtMs, name, param);
  // Its own credentials come from secret references the control plane could not resolve in time.
  if (p.credentialError !== '') throw unavailable(`${name}: ${p.credentialError}`, param);
  let integration: EntityOf<'integration'> | undefined;
  let access: IntegrationWorkspace | undefined;
  if (p.integrationId !== '') {
    integration = snapshot.find(EntityKind.INTEGRATION, 'integration', p.integrationId);
    if (!integration || integration.organisationId !== entity.organisationId) {
      throw unavailable(`the integration of ${name} no longer exists`, param);
    }
    const i = integration.body.value;
    if (i.status !== EntityStatus.ACTIVE) throw unavailable(`the integration of ${name} is disabled`, param);
    // An explicit workspace entry wins over allow_all_workspaces (as the control plane decides it).
    access = i.workspaces.find((w) => w.workspaceId === workspaceId);
    if (!(access ? access.enabled : i.allowAllWorkspaces)) {
      throw unavailable(`the integration of ${name} is not enabled for this workspace`, param);
    }
    // Its credentials come from secret references the control plane could not resolve in time.
    if (i.credentialError !== '')
      throw unavailable(`the integration of ${name}: ${i.credentialError}`, param);
  }
  const i = integration?.body.value;
  const type = providerType(p.aiProvider || i?.aiProvider || '', param);
  const credentials = p.encryptedCredentials.length
    ? store.open('provider', entity.id, entity.version, p.encryptedCredentials)
    : integration && i?.encryptedCredentials.length
      ? store.open('integration', integration.id, integration.version, i.encryptedCredentials)
      : undefined;
  const options = entityOptions(type.id, i?.options, p.options);
  return target(type, credentials, options, [p.allowedModels, i?.allowedModels ?? []], param, {
    slug: p.slug,
    providerId: entity.id,
    integrationId: integration?.id ?? '',
    provider: entity,
    integration,
    integrationWorkspace: access,
    ...vk,
  });
}

function target(
  provider: ProviderDefinition,
  credentials: ProviderCredentials | undefined,
  options: EntityOptions,
  lists: readonly (readonly string[])[],
  param: string,
  ref: ManagedRef,
): ManagedTarget {
  if (credentials?.exchange) {
    const what = credentials.exchange === 'azure_entra' ? 'Azure Entra' : 'Google service account';
    throw gatewayError(
      'config_unavailable',
      `${ref.slug}: ${what} credentials need a token exchange this gateway does not make yet; use an API key credential`,
      { param },
    );
  }
  const bedrock =
    credentials?.awsAccessKeyId !== undefined
      ? {
          accessKeyId: credentials.awsAccessKeyId,
          ...(credentials.awsSecretAccessKey === undefined
            ? {}
            : { secretAccessKey: credentials.awsSecretAccessKey }),
          ...(credentials.awsSessionToken === undefined ? {} : { sessionToken: credentials.awsSessionToken }),
        }
      : undefined;
  return {
    provider,
    token: credentials?.apiKey,
    options,
    secrets: bedrock ? { bedrock } : {},
    setHeaders: credentials?.customHeaders ?? {},
    allowedModels: lists.filter((l) => l.length > 0),
    ref,
  };
}

/** Does sending the request need its model first (allow-list, Azure deployment by model)? */
export function needsModel(target: ManagedTarget): boolean {
  return target.allowedModels.length > 0 || target.options.deployments.length > 1;
}

export function assertModelAllowed(target: ManagedTarget, model: string, param: string): void {
  // A call without a model (files, batches, model lists) is not a model call.
  if (model === '' || target.allowedModels.every((list) => list.includes(model))) return;
  throw gatewayError(
    'model_not_allowed',
    `model "${model.slice(0, 128)}" is not allowed through ${target.ref.slug} (its allowed_models)`,
    { param },
  );
}

/**
 * The model an allow-list checks: the one a request names, else the one the call runs (an image
 * request's default, dall-e-2); '' for calls that run none (files, lists). A Responses call naming
 * none runs a stored prompt's model, which the gateway cannot know: refused under a list.
 */
export function modelCalled(
  target: ManagedTarget,
  method: string,
  path: string,
  named: string,
  asked: unknown,
): string {
  if (named !== '') return named;
  const media = mediaModel(path, '', asked);
  if (media !== '') return media;
  if (method === 'POST' && path === '/responses' && target.allowedModels.length > 0) {
    throw gatewayError(
      'model_not_allowed',
      `${target.ref.slug} allows only some models (its allowed_models): name the model of a Responses call (without one it runs a stored prompt's, which cannot be checked)`,
      { param: 'model' },
    );
  }
  return '';
}

/**
 * A request that creates a batch (below `/v1`): its requests' models are in an input file it names
 * (`input_file`: OpenAI, Azure OpenAI and compatible hosts) or in its body (`requests`: Anthropic's
 * message batches), not in its own `model`.
 */
export function batchCreation(method: string, path: string): 'input_file' | 'requests' | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/batches') return 'input_file';
  return path === '/messages/batches' ? 'requests' : undefined;
}

/**
 * A model named where Azure names a deployment (a batch's request, a realtime session): it must be
 * allowed; for Azure it is a deployment, which must be one of the provider's, serving an allowed
 * model.
 */
export function assertNamedModelAllowed(target: ManagedTarget, model: string, param: string): void {
  if (target.provider.id === 'azure-openai') assertDeploymentIdAllowed(target, model, param);
  else assertModelAllowed(target, model, param);
}

/**
 * With an allow-list, an Azure request goes only to a deployment the provider lists, serving an
 * allowed model: Azure serves the deployment's model whatever the body names, so the deployment a
 * client picks (`x-service-cloudA-deployment-id`, or the AzureOpenAI SDK's `/deployments/<id>/`
 * path) is checked as its model. 403 `model_not_allowed` otherwise.
 */
export function assertDeploymentAllowed(
  target: ManagedTarget,
  path: string,
  cloud: CloudOptions,
  param: string,
): void {
  const id = azureDeploymentId(target, path, cloud);
  if (id !== undefined) assertDeploymentIdAllowed(target, id, param);
}

/** With an allow-list, the deployment must be one the provider lists, serving an allowed model. */
function assertDeploymentIdAllowed(target: ManagedTarget, id: string, param: string): void {
  if (target.allowedModels.length === 0) return;
  const deployment = target.options.deployments.find((d) => d.deploymentId === id);
  if (!deployment) {
    throw gatewayError(
      'model_not_allowed',
      `deployment "${id.slice(0, 64)}" is not one of ${target.ref.slug}'s deployments, and ${target.ref.slug} allows only some models (its allowed_models)`,
      { param },
    );
  }
  assertModelAllowed(target, deployment.model, param);
}

/**
 * The model the Azure deployment a request goes to serves, when the provider lists that deployment
 * (undefined otherwise, and for other providers): what limits count, since Azure answers with the
 * deployment's model whatever the body names.
 */
export function deploymentModel(
  target: ManagedTarget,
  path: string,
  cloud: CloudOptions,
): string | undefined {
  const id = azureDeploymentId(target, path, cloud);
  return id === undefined ? undefined : servedModel(target, id);
}

/** The model a deployment the provider lists serves (undefined for one it does not list). */
export function servedModel(target: ManagedTarget, deploymentId: string): string | undefined {
  return target.options.deployments.find((d) => d.deploymentId === deploymentId)?.model || undefined;
}

function azureDeploymentId(target: ManagedTarget, path: string, cloud: CloudOptions): string | undefined {
  return target.provider.id === 'azure-openai' ? azureDeploymentOf(path, cloud) : undefined;
}

/** The options to send a managed request with (see managedCloud for what a client may add). */
export function cloudFor(target: ManagedTarget, client: CloudOptions, model: string): CloudOptions {
  return managedCloud(target.options, target.secrets, client, model);
}

function providerType(type: string, param: string): ProviderDefinition {
  const provider = getProvider(type);
  if (!provider) throw unavailable(`provider type "${type}" is not supported by this gateway`, param);
  return provider;
}

function usable(status: EntityStatus, expiresAtMs: number, name: string, param: string): void {
  if (status === EntityStatus.EXPIRED || (expiresAtMs > 0 && expiresAtMs <= Date.now())) {
    throw unavailable(`${name} has expired`, param);
  }
  if (status !== EntityStatus.ACTIVE) {
    throw unavailable(`${name} is ${status === EntityStatus.ARCHIVED ? 'archived' : 'disabled'}`, param);
  }
}

function notFound(what: string, param: string): Error {
  return gatewayError('provider_not_found', `${what} does not exist in this workspace`, { param });
}

function unavailable(message: string, param: string): Error {
  return gatewayError('provider_unavailable', message, { param });
}

// Where one config leaf sends the request: its provider, credential, custom host and provider
// options, from the leaf's effective settings with the request headers filling in what it leaves out.
// With a control plane, `@slug` providers and virtual keys resolve to managed credentials.
import type { EffectiveSettings } from '@aigw/config-schema';
import {
  assertDeploymentAllowed,
  assertModelAllowed,
  batchCreation,
  cloudFor,
  deploymentModel,
  type LeafResolver,
  type ManagedRef,
  type ManagedTarget,
  modelCalled,
} from '../access/index.js';
import { gatewayError } from '../errors.js';
import type { CloudOptions, ProviderDefinition } from '../providers/types.js';
import { H } from '../request/service-headers.js';
import { resolveProvider } from '../upstream/target.js';

/** What the request headers said about the provider (read once per request). */
export interface HeaderProvider {
  readonly provider: string | undefined;
  /** `Authorization: Bearer <token>`. */
  readonly token: string | undefined;
  readonly customHost: string | undefined;
  readonly cloud: CloudOptions;
  readonly forwardHeaders: readonly string[];
  readonly requestTimeoutMs: number | undefined;
  /** Control-plane mode: resolves managed providers and virtual keys of the request's workspace. */
  readonly managed?: LeafResolver | undefined;
  /** The request body's `model` ('' when none): managed allow-lists and Azure deployments. */
  readonly model?: string;
  /** The request's path below `/v1`: the Azure deployment it may name (managed allow-lists). */
  readonly path?: string;
  /** The request's method: a batch's creation (managed allow-lists). */
  readonly method?: string;
  /** The parsed body (or form): the model a call runs when it names none (managed allow-lists). */
  readonly asked?: unknown;
}

export interface LeafTarget {
  readonly provider: ProviderDefinition;
  readonly token: string | undefined;
  /** A custom host still to be SSRF-checked. */
  readonly customHost: string | undefined;
  readonly cloud: CloudOptions;
  /** Provider headers the config asks for (`openai-project`, `openai-organization`). */
  readonly setHeaders: Readonly<Record<string, string>>;
  readonly forwardHeaders: readonly string[];
  readonly timeoutMs: number | undefined;
  /** The managed provider or virtual key the leaf used (request events). */
  readonly ref?: ManagedRef;
  /**
   * The model a managed Azure deployment the leaf calls serves, when the provider lists it: limits
   * count it, since Azure answers with the deployment's model whatever the body names.
   */
  readonly servedModel?: string | undefined;
}

/**
 * The request headers' provider fields count only for a leaf of the same provider (or one that
 * names none): a credential sent for one provider never goes to another, as in config inheritance.
 */
export function leafTarget(settings: EffectiveSettings, headers: HeaderProvider): LeafTarget {
  const named = settings.provider?.trim().toLowerCase();
  const managed = managedLeaf(settings, named, headers);
  if (managed) return managedTarget(managed, settings, named === undefined, headers);
  const fromHeaders = named === undefined || named === headers.provider;
  const customHost = settings.custom_host ?? (fromHeaders ? headers.customHost : undefined);
  const provider = resolveProvider(named ?? headers.provider, customHost !== undefined);
  const setHeaders: Record<string, string> = {};
  if (settings.openai_project !== undefined) setHeaders['openai-project'] = settings.openai_project;
  if (settings.openai_organization !== undefined) {
    setHeaders['openai-organization'] = settings.openai_organization;
  }
  const forwardHeaders = settings.forward_headers
    ? [...new Set([...headers.forwardHeaders, ...settings.forward_headers])]
    : headers.forwardHeaders;
  return {
    provider,
    token: settings.api_key ?? (fromHeaders ? headers.token : undefined),
    customHost,
    cloud: cloudOptions(settings, fromHeaders ? headers.cloud : {}),
    setHeaders,
    forwardHeaders,
    timeoutMs: settings.request_timeout ?? headers.requestTimeoutMs,
  };
}

/** The leaf's own `@slug` or virtual key, else (naming no provider) the one the headers named. */
function managedLeaf(
  settings: EffectiveSettings,
  named: string | undefined,
  headers: HeaderProvider,
): ManagedTarget | undefined {
  const resolver = headers.managed;
  if (!resolver) return undefined;
  if (settings.virtual_key !== undefined) {
    return resolver.resolve({ virtualKey: settings.virtual_key, param: H.config });
  }
  if (named?.startsWith('@')) return resolver.resolve({ provider: named, param: H.config });
  return named === undefined ? resolver.fromHeaders : undefined;
}

/**
 * A managed leaf sends the managed credentials to the managed provider's own host: the config's
 * api_key, custom_host and host-forming options do not apply (auth/provider-options.ts).
 */
function managedTarget(
  managed: ManagedTarget,
  settings: EffectiveSettings,
  fromHeaders: boolean,
  headers: HeaderProvider,
): LeafTarget {
  const override = settings.override_params?.model;
  const model =
    typeof override === 'string'
      ? override
      : modelCalled(managed, headers.method ?? '', headers.path ?? '', headers.model ?? '', headers.asked);
  assertModelAllowed(managed, model, H.config);
  // A batch's models are in its input file or its requests, which only a plain call checks
  // (pipeline/batch-models.ts): through a config, an allow-list refuses the batch.
  if (managed.allowedModels.length > 0 && batchCreation(headers.method ?? '', headers.path ?? '')) {
    throw gatewayError(
      'model_not_allowed',
      `${managed.ref.slug} allows only some models (its allowed_models), which a batch sent through a config is not checked against: create it with ${H.provider}`,
      { param: H.config },
    );
  }
  const setHeaders: Record<string, string> = { ...managed.setHeaders };
  if (settings.openai_project !== undefined) setHeaders['openai-project'] = settings.openai_project;
  if (settings.openai_organization !== undefined) {
    setHeaders['openai-organization'] = settings.openai_organization;
  }
  const cloud = cloudFor(managed, cloudOptions(settings, fromHeaders ? headers.cloud : {}), model);
  assertDeploymentAllowed(managed, headers.path ?? '', cloud, H.config);
  const servedModel = deploymentModel(managed, headers.path ?? '', cloud);
  return {
    provider: managed.provider,
    token: managed.token,
    customHost: managed.options.customHost,
    cloud,
    setHeaders,
    forwardHeaders: settings.forward_headers
      ? [...new Set([...headers.forwardHeaders, ...settings.forward_headers])]
      : headers.forwardHeaders,
    timeoutMs: settings.request_timeout ?? headers.requestTimeoutMs,
    ref: managed.ref,
    servedModel,
  };
}

/** The config's provider options over the headers' ones, field by field. */
export function cloudOptions(s: EffectiveSettings, base: CloudOptions): CloudOptions {
  const azure = pick({
    resourceName: s.azure_resource_name ?? base.azure?.resourceName,
    deploymentId: s.azure_deployment_id ?? base.azure?.deploymentId,
    apiVersion: s.azure_api_version ?? base.azure?.apiVersion,
    modelName: s.azure_model_name ?? base.azure?.modelName,
  });
  const vertex = pick({
    projectId: s.vertex_project_id ?? base.vertex?.projectId,
    region: s.vertex_region ?? base.vertex?.region,
    requestType: base.vertex?.requestType,
  });
  const bedrock = pick({
    accessKeyId: s.aws_access_key_id ?? base.bedrock?.accessKeyId,
    secretAccessKey: s.aws_secret_access_key ?? base.bedrock?.secretAccessKey,
    sessionToken: s.aws_session_token ?? base.bedrock?.sessionToken,
    region: s.aws_region ?? base.bedrock?.region,
  });
  const anthropicBeta = s.anthropic_beta ?? base.anthropicBeta;
  const anthropicVersion = s.anthropic_version ?? base.anthropicVersion;
  return {
    ...(azure && { azure }),
    ...(vertex && { vertex }),
    ...(bedrock && { bedrock }),
    ...(anthropicBeta !== undefined && { anthropicBeta }),
    ...(anthropicVersion !== undefined && { anthropicVersion }),
  };
}

/** The fields that are set, or undefined when none is (an absent option stays absent). */
function pick<T extends Record<string, string | undefined>>(fields: T): Partial<T> | undefined {
  const out: Partial<T> = {};
  for (const key in fields) if (fields[key] !== undefined) out[key] = fields[key];
  return Object.keys(out).length === 0 ? undefined : out;
}

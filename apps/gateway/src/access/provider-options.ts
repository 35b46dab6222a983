// A managed provider's non-secret options (the integration's, overridden by the provider's) as the
// provider modules read them, and how the request's own option headers may add to them.
import type { CloudOptions } from '../providers/types.js';

export interface AzureDeployment {
  readonly deploymentId: string;
  readonly model: string;
  readonly apiVersion: string | undefined;
  readonly isDefault: boolean;
}

export interface EntityOptions {
  readonly customHost: string | undefined;
  readonly cloud: CloudOptions;
  readonly deployments: readonly AzureDeployment[];
}

/** `options` maps of the integration and the provider (provider wins), for a provider type. */
export function entityOptions(
  type: string,
  ...maps: ReadonlyArray<Readonly<Record<string, string>> | undefined>
): EntityOptions {
  const o: Record<string, string> = Object.assign({}, ...maps);
  const cloud: { -readonly [K in keyof CloudOptions]: CloudOptions[K] } = {};
  if (type === 'azure-openai') {
    cloud.azure = defined({ resourceName: o.resource_name, apiVersion: o.api_version });
  } else if (type === 'vertex-ai') {
    cloud.vertex = defined({ projectId: o.project_id, region: o.region });
  } else if (type === 'bedrock') {
    cloud.bedrock = defined({ region: o.region });
  }
  return { customHost: o.custom_host, cloud, deployments: parseDeployments(o.deployments) };
}

function parseDeployments(text: string | undefined): AzureDeployment[] {
  if (!text) return [];
  try {
    const list = JSON.parse(text) as unknown;
    if (!Array.isArray(list)) return [];
    return list.flatMap((d: Record<string, unknown>) =>
      typeof d?.deployment_id === 'string'
        ? [
            {
              deploymentId: d.deployment_id,
              model: typeof d.model === 'string' ? d.model : '',
              apiVersion: typeof d.api_version === 'string' ? d.api_version : undefined,
              isDefault: d.is_default === true,
            },
          ]
        : [],
    );
  } catch {
    return [];
  }
}

/**
 * The options a managed request is sent with. Whatever builds the upstream host (custom host, Azure
 * resource, Vertex and Bedrock regions) and the credentials come only from the entity: a client
 * header must never send the managed key elsewhere. The client's headers fill in the rest (an Azure
 * deployment or api version, a Vertex request type, Anthropic beta flags). Without a deployment
 * header, the Azure deployment serving `model` is chosen, else the default one, else the only one.
 */
export function managedCloud(
  entity: EntityOptions,
  secrets: Pick<CloudOptions, 'bedrock'>,
  client: CloudOptions,
  model: string,
): CloudOptions {
  const out: { -readonly [K in keyof CloudOptions]: CloudOptions[K] } = {};
  const e = entity.cloud;
  if (e.azure !== undefined || entity.deployments.length > 0) {
    const deployment =
      client.azure?.deploymentId === undefined ? pickDeployment(entity.deployments, model) : undefined;
    out.azure = defined({
      resourceName: e.azure?.resourceName,
      deploymentId: client.azure?.deploymentId ?? deployment?.deploymentId,
      apiVersion: e.azure?.apiVersion ?? deployment?.apiVersion ?? client.azure?.apiVersion,
      modelName: client.azure?.modelName ?? deployment?.model,
    });
  }
  if (e.vertex !== undefined) {
    out.vertex = defined({
      projectId: e.vertex.projectId ?? client.vertex?.projectId,
      region: e.vertex.region,
      requestType: client.vertex?.requestType,
    });
  }
  if (e.bedrock !== undefined || secrets.bedrock !== undefined) {
    out.bedrock = defined({ ...secrets.bedrock, region: e.bedrock?.region });
  }
  if (client.anthropicBeta !== undefined) out.anthropicBeta = client.anthropicBeta;
  if (client.anthropicVersion !== undefined) out.anthropicVersion = client.anthropicVersion;
  return out;
}

function pickDeployment(list: readonly AzureDeployment[], model: string): AzureDeployment | undefined {
  if (list.length === 0) return undefined;
  return (
    (model === '' ? undefined : list.find((d) => d.model === model)) ??
    list.find((d) => d.isDefault) ??
    (list.length === 1 ? list[0] : undefined)
  );
}

/** Only the fields that are set (an absent option stays absent). */
function defined<T extends Record<string, string | undefined>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key in fields) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}

// The provider option headers (`x-service-cloudA/B/C-*`, `x-service-anthropic-*`): their table (the
// docs are written from it) and reading them into CloudOptions. Values are checked where they are used.
import type { IncomingHttpHeaders } from 'node:http';
import { gatewayError } from '../errors.js';
import type { CloudOptions } from './types.js';

export interface CloudHeader {
  /** The header as documented (HTTP header names are case-insensitive). */
  readonly name: string;
  /** The provider id it configures. */
  readonly provider: 'azure-openai' | 'vertex-ai' | 'bedrock' | 'anthropic';
  readonly required: string;
  readonly meaning: string;
}

/** Documented spelling of every provider option header, by role. */
export const CLOUD_HEADER = {
  azureResourceName: 'x-service-cloudA-resource-name',
  azureDeploymentId: 'x-service-cloudA-deployment-id',
  azureApiVersion: 'x-service-cloudA-api-version',
  azureModelName: 'x-service-cloudA-model-name',
  vertexProjectId: 'x-service-cloudB-project-id',
  vertexRegion: 'x-service-cloudB-region',
  vertexRequestType: 'x-service-cloudB-request-type',
  bedrockAccessKeyId: 'x-service-cloudC-access-key-id',
  bedrockSecretAccessKey: 'x-service-cloudC-secret-access-key',
  bedrockSessionToken: 'x-service-cloudC-session-token',
  bedrockRegion: 'x-service-cloudC-region',
  anthropicBeta: 'x-service-anthropic-beta',
  anthropicVersion: 'x-service-anthropic-version',
} as const;

const H = CLOUD_HEADER;

export const CLOUD_HEADERS: readonly CloudHeader[] = [
  {
    name: H.azureResourceName,
    provider: 'azure-openai',
    required: 'yes, unless a custom host is given',
    meaning: 'Azure OpenAI resource: the upstream host is `<resource>.openai.azure.com` (a DNS label)',
  },
  {
    name: H.azureDeploymentId,
    provider: 'azure-openai',
    required: 'for deployment-scoped paths (chat/completions, completions, embeddings, images, audio)',
    meaning: 'deployment name: `/openai/deployments/<deployment-id>/<path>`',
  },
  {
    name: H.azureApiVersion,
    provider: 'azure-openai',
    required: 'yes, unless the query already has `api-version`',
    meaning: 'the `api-version` query parameter (e.g. `2024-10-21`)',
  },
  {
    name: H.azureModelName,
    provider: 'azure-openai',
    required: 'no',
    meaning: 'the model behind the deployment, for logs and pricing; not part of the upstream URL',
  },
  {
    name: H.vertexProjectId,
    provider: 'vertex-ai',
    required: 'yes, unless the path or the `model` body field is a full `projects/...` name',
    meaning: 'Google Cloud project id: `/v1/projects/<project-id>/...` (a DNS label)',
  },
  {
    name: H.vertexRegion,
    provider: 'vertex-ai',
    required: 'same as the project id',
    meaning: 'location: host `<region>-aiplatform.googleapis.com` (`global`: `aiplatform.googleapis.com`)',
  },
  {
    name: H.vertexRequestType,
    provider: 'vertex-ai',
    required: 'for native model calls',
    meaning:
      'model method called as `<model>:<request-type>` with the model from the `model` body field (`generateContent`, `streamGenerateContent`, `rawPredict`, `streamRawPredict`, `countTokens`, ...)',
  },
  {
    name: H.bedrockAccessKeyId,
    provider: 'bedrock',
    required: 'yes, unless a Bedrock API key is sent as the bearer token',
    meaning: 'AWS access key id the request is SigV4-signed with',
  },
  {
    name: H.bedrockSecretAccessKey,
    provider: 'bedrock',
    required: 'with the access key id',
    meaning: 'AWS secret access key (used to sign, never forwarded)',
  },
  {
    name: H.bedrockSessionToken,
    provider: 'bedrock',
    required: 'for temporary credentials',
    meaning: 'AWS session token, sent and signed as `x-amz-security-token`',
  },
  {
    name: H.bedrockRegion,
    provider: 'bedrock',
    required: 'yes',
    meaning: 'AWS region: host `bedrock-runtime.<region>.amazonaws.com` and the signing scope (a DNS label)',
  },
  {
    name: H.anthropicBeta,
    provider: 'anthropic',
    required: 'no',
    meaning: 'sent upstream as `anthropic-beta` (replaces the client header of that name)',
  },
  {
    name: H.anthropicVersion,
    provider: 'anthropic',
    required: 'no',
    meaning:
      'sent upstream as `anthropic-version`; precedence: this header, then the client `anthropic-version`, then `2023-06-01`',
  },
];

function read(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  if (Array.isArray(value))
    throw gatewayError('invalid_header', `${name} must be sent once`, { param: name });
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** Keeps only the fields that are set, so an absent header never shows up as `undefined`. */
function defined<T extends Record<string, string | undefined>>(fields: T): Partial<T> | undefined {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) out[key as keyof T] = value as T[keyof T];
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

const LOWER_NAMES = Object.values(H).map((name) => name.toLowerCase());
const NO_OPTIONS: CloudOptions = Object.freeze({});

/** Reads the option headers (names matched case-insensitively; node already lower-cases them). */
export function readCloudOptions(headers: IncomingHttpHeaders): CloudOptions {
  // Most requests carry none of them: answer without building anything.
  if (!LOWER_NAMES.some((name) => headers[name] !== undefined)) return NO_OPTIONS;
  const azure = defined({
    resourceName: read(headers, H.azureResourceName),
    deploymentId: read(headers, H.azureDeploymentId),
    apiVersion: read(headers, H.azureApiVersion),
    modelName: read(headers, H.azureModelName),
  });
  const vertex = defined({
    projectId: read(headers, H.vertexProjectId),
    region: read(headers, H.vertexRegion),
    requestType: read(headers, H.vertexRequestType),
  });
  const bedrock = defined({
    accessKeyId: read(headers, H.bedrockAccessKeyId),
    secretAccessKey: read(headers, H.bedrockSecretAccessKey),
    sessionToken: read(headers, H.bedrockSessionToken),
    region: read(headers, H.bedrockRegion),
  });
  const anthropic = defined({
    anthropicBeta: read(headers, H.anthropicBeta),
    anthropicVersion: read(headers, H.anthropicVersion),
  });
  return {
    ...(azure && { azure }),
    ...(vertex && { vertex }),
    ...(bedrock && { bedrock }),
    ...anthropic,
  };
}

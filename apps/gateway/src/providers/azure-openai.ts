// Azure OpenAI (cloud A): `https://<resource>.openai.azure.com/openai/...?api-version=<v>`. Model calls
// are scoped to a deployment; account-level APIs (files, batches, models, fine-tuning, responses) are
// not. The bearer token becomes `api-key`. A custom host replaces only `https://<resource>.openai.azure.com`.
import { validateHostnameLabel } from '@aigw/ssrf';
import { gatewayError } from '../errors.js';
import { CLOUD_HEADER } from './cloud-headers.js';
import type { ProviderDefinition, ProviderRequest } from './types.js';
import { customBase, joinUrl } from './upstream-url.js';

/** Paths Azure serves under `/openai/deployments/<deployment>`. */
const DEPLOYMENT_PATHS = ['/chat/completions', '/completions', '/embeddings'];
const DEPLOYMENT_PREFIXES = ['/images/', '/audio/'];
/** Azure deployment names: letters, digits, `-`, `_`, `.`, starting with a letter or digit. */
const DEPLOYMENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const API_VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

function isDeploymentScoped(path: string): boolean {
  return DEPLOYMENT_PATHS.includes(path) || DEPLOYMENT_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * The deployment a request goes to: the one its path names (the AzureOpenAI SDK's
 * `/deployments/<id>/...`), else on a deployment-scoped path the options' (the header, or a managed
 * provider's pick by model); undefined when the request is not deployment-scoped.
 */
export function azureDeploymentOf(path: string, cloud: ProviderRequest['cloud']): string | undefined {
  if (path.startsWith('/deployments/')) return path.slice('/deployments/'.length).split('/', 1)[0];
  return isDeploymentScoped(path) ? cloud.azure?.deploymentId : undefined;
}

function missing(name: string, why: string): Error {
  return gatewayError('invalid_header', `${name} is required ${why}`, { param: name });
}

function base(request: ProviderRequest): string {
  const resource = request.cloud.azure?.resourceName;
  const label =
    resource === undefined ? undefined : validateHostnameLabel(CLOUD_HEADER.azureResourceName, resource);
  if (request.customHost) return customBase(request.customHost);
  if (label === undefined) throw missing(CLOUD_HEADER.azureResourceName, 'for provider azure-openai');
  return `https://${label}.openai.azure.com`;
}

function deploymentId(request: ProviderRequest): string | undefined {
  const deployment = request.cloud.azure?.deploymentId;
  const name = CLOUD_HEADER.azureDeploymentId;
  if (deployment !== undefined && !DEPLOYMENT_ID.test(deployment)) {
    throw gatewayError('invalid_header', `${name} must be 1-64 letters, digits, '.', '_' or '-'`, {
      param: name,
    });
  }
  return deployment;
}

function upstreamPath(request: ProviderRequest): string {
  const deployment = deploymentId(request);
  // The AzureOpenAI SDK pointed at the gateway already sends `/deployments/<name>/...`.
  if (request.path.startsWith('/deployments/') || !isDeploymentScoped(request.path)) {
    return `/openai${request.path}`;
  }
  if (deployment === undefined) {
    throw missing(CLOUD_HEADER.azureDeploymentId, `for ${request.path} on provider azure-openai`);
  }
  return `/openai/deployments/${deployment}${request.path}`;
}

/** Keeps a client-sent `api-version` as it is; otherwise appends the header's value. */
function withApiVersion(search: string, apiVersion: string | undefined): string {
  const name = CLOUD_HEADER.azureApiVersion;
  if (apiVersion !== undefined && !API_VERSION.test(apiVersion)) {
    throw gatewayError('invalid_header', `${name} must look like 2024-10-21 or 2025-04-01-preview`, {
      param: name,
    });
  }
  if (new URLSearchParams(search).has('api-version')) return search;
  if (apiVersion === undefined) throw missing(name, 'for provider azure-openai');
  const pair = `api-version=${encodeURIComponent(apiVersion)}`;
  return search === '' || search === '?' ? `?${pair}` : `${search}&${pair}`;
}

function apiKey(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { 'api-key': token };
}

export const azureOpenai: ProviderDefinition = {
  id: 'azure-openai',
  baseUrl: 'https://<resource-name>.openai.azure.com/openai',
  needsBody: () => false,
  buildTarget(request) {
    const host = base(request);
    const path = upstreamPath(request);
    const search = withApiVersion(request.search, request.cloud.azure?.apiVersion);
    return {
      url: joinUrl(host, path, search),
      setHeaders: apiKey(request.token),
      removeHeaders: ['authorization'],
    };
  },
};

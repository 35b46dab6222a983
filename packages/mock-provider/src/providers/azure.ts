// Azure OpenAI deployments: OpenAI shapes plus content-filter fields, api-version checked while routing.
import type { RouteContext } from '../context.js';
import { azureError, type ProviderError } from '../errors.js';
import { handleChatCompletions } from './openai-chat.js';
import { handleCompletions } from './openai-completions.js';
import { handleEmbeddings } from './openai-embeddings.js';

const API_VERSION = /^\d{4}-\d{2}-\d{2}(-preview)?$/;

/** Azure answers a missing api-version as an unknown resource, and a malformed one as a bad request. */
export function checkApiVersion(ctx: RouteContext): ProviderError | undefined {
  const version = ctx.query.get('api-version');
  if (version === null || version === '') return azureError(404, '404', 'Resource not found');
  if (!API_VERSION.test(version)) return azureError(400, 'BadRequest', 'API version not supported');
  return undefined;
}

const SAFE = { filtered: false, severity: 'safe' };
const FILTERS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };

export function handleAzureChat(ctx: RouteContext): Promise<void> {
  return handleChatCompletions(ctx, {
    defaultModel: ctx.params.deployment,
    extraFields: { prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTERS }] },
    extraChoiceFields: { content_filter_results: FILTERS },
  });
}

export function handleAzureCompletions(ctx: RouteContext): Promise<void> {
  return handleCompletions(ctx, ctx.params.deployment);
}

export function handleAzureEmbeddings(ctx: RouteContext): void {
  handleEmbeddings(ctx, ctx.params.deployment);
}

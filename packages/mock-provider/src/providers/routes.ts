// The route table: every provider path the mock answers, with its auth and error style.
import type { AuthKind } from '../auth.js';
import type { RouteContext } from '../context.js';
import type { ErrorStyle } from '../errors.js';
import type { Route } from '../router.js';
import type { ProviderName } from '../types.js';
import { handleCountTokens, handleMessages } from './anthropic.js';
import { checkApiVersion, handleAzureChat, handleAzureCompletions, handleAzureEmbeddings } from './azure.js';
import { handleConverse, handleConverseStream, handleInvoke, handleInvokeStream } from './bedrock.js';
import { handleCohereChat, handleCohereEmbed } from './cohere.js';
import { handleChatCompletions } from './openai-chat.js';
import { handleCompletions } from './openai-completions.js';
import { handleEmbeddings } from './openai-embeddings.js';
import {
  handleDeleteFile,
  handleFileContent,
  handleGetFile,
  handleListFiles,
  handleTranscription,
  handleUploadFile,
} from './openai-files.js';
import { handleGetBatch, handleJobEvents, handleListBatches } from './openai-lists.js';
import { handleImageGenerations, handleImageUpload, handleSpeech } from './openai-media.js';
import { handleGetModel, handleListModels, handleModerations, handleRerank } from './openai-misc.js';
import {
  handleBatchEmbedContents,
  handleGenerateContent,
  handlePredictEmbeddings,
  handleStreamGenerateContent,
} from './vertex.js';

type Handler = Route['handle'];

function family(provider: ProviderName, style: ErrorStyle, auth: AuthKind) {
  return (method: string, pattern: RegExp, handle: Handler, extra: Partial<Route> = {}): Route => ({
    methods: [method],
    pattern,
    provider,
    style,
    auth,
    handle,
    ...extra,
  });
}

const openai = family('openai', 'openai', 'openai');
const anthropic = family('anthropic', 'anthropic', 'anthropic');
const azure = family('azure', 'azure', 'azure');
const bedrock = family('bedrock', 'bedrock', 'sigv4');
const vertex = family('vertex', 'google', 'google');
const google = family('google', 'google', 'google-key');
const cohere = family('cohere', 'cohere', 'cohere');
/** Vertex's Anthropic models answer body errors in Anthropic's shape, but auth is still Google's. */
const vertexAnthropic = family('vertex', 'anthropic', 'google');

const AZ = '^/openai/deployments/(?<deployment>[^/]+)';
const VX = '^/(?:v1|v1beta1)/projects/(?<project>[^/]+)/locations/(?<location>[^/]+)';
const COLON = '(?::|%3[Aa])';
/** Google AI Studio's model paths. */
const GM = '^/(?:v1|v1beta)/models/(?<model>[^/:%]+)';
const azureOpts = { precheck: checkApiVersion };

export const ROUTES: readonly Route[] = [
  openai('POST', /^\/v1\/chat\/completions$/, (ctx) => handleChatCompletions(ctx)),
  openai('POST', /^\/v1\/completions$/, (ctx) => handleCompletions(ctx)),
  openai('POST', /^\/v1\/embeddings$/, (ctx) => handleEmbeddings(ctx)),
  openai('GET', /^\/v1\/models$/, handleListModels),
  openai('GET', /^\/v1\/models\/(?<id>[^/]+)$/, handleGetModel),
  openai('POST', /^\/v1\/moderations$/, handleModerations),
  openai('POST', /^\/v1\/rerank$/, handleRerank),
  openai('GET', /^\/v1\/batches$/, handleListBatches),
  openai('GET', /^\/v1\/batches\/(?<id>[^/]+)$/, handleGetBatch),
  openai('GET', /^\/v1\/fine_tuning\/jobs\/(?<id>[^/]+)\/events$/, handleJobEvents),
  openai('POST', /^\/v1\/files$/, handleUploadFile),
  openai('GET', /^\/v1\/files$/, handleListFiles),
  openai('GET', /^\/v1\/files\/(?<id>[^/]+)$/, handleGetFile),
  openai('DELETE', /^\/v1\/files\/(?<id>[^/]+)$/, handleDeleteFile),
  openai('GET', /^\/v1\/files\/(?<id>[^/]+)\/content$/, handleFileContent),
  openai('POST', /^\/v1\/audio\/transcriptions$/, handleTranscription),
  openai('POST', /^\/v1\/images\/generations$/, handleImageGenerations),
  openai('POST', /^\/v1\/images\/edits$/, (ctx) => handleImageUpload(ctx, true)),
  openai('POST', /^\/v1\/images\/variations$/, (ctx) => handleImageUpload(ctx, false)),
  openai('POST', /^\/v1\/audio\/speech$/, handleSpeech),

  anthropic('POST', /^\/v1\/messages$/, (ctx) => handleMessages(ctx)),
  anthropic('POST', /^\/v1\/messages\/count_tokens$/, handleCountTokens),

  azure('POST', new RegExp(`${AZ}/chat/completions$`), handleAzureChat, azureOpts),
  azure('POST', new RegExp(`${AZ}/completions$`), handleAzureCompletions, azureOpts),
  azure('POST', new RegExp(`${AZ}/embeddings$`), handleAzureEmbeddings, azureOpts),

  bedrock('POST', /^\/model\/(?<modelId>[^/]+)\/converse$/, handleConverse),
  bedrock('POST', /^\/model\/(?<modelId>[^/]+)\/converse-stream$/, handleConverseStream),
  bedrock('POST', /^\/model\/(?<modelId>[^/]+)\/invoke$/, handleInvoke),
  bedrock('POST', /^\/model\/(?<modelId>[^/]+)\/invoke-with-response-stream$/, handleInvokeStream),

  vertex(
    'POST',
    new RegExp(`${VX}/publishers/google/models/(?<model>[^/:%]+)${COLON}generateContent$`),
    handleGenerateContent,
  ),
  vertex(
    'POST',
    new RegExp(`${VX}/publishers/google/models/(?<model>[^/:%]+)${COLON}streamGenerateContent$`),
    handleStreamGenerateContent,
  ),
  vertexAnthropic(
    'POST',
    new RegExp(`${VX}/publishers/anthropic/models/(?<model>[^/:%]+)${COLON}(?:rawPredict|streamRawPredict)$`),
    (ctx: RouteContext) =>
      handleMessages(ctx, { model: ctx.params.model ?? '', requiredBodyField: 'anthropic_version' }),
  ),
  vertex('POST', new RegExp(`${VX}/endpoints/openapi/chat/completions$`), (ctx) =>
    handleChatCompletions(ctx),
  ),
  vertex(
    'POST',
    new RegExp(`${VX}/publishers/google/models/(?<model>[^/:%]+)${COLON}predict$`),
    handlePredictEmbeddings,
  ),

  google('POST', new RegExp(`${GM}${COLON}generateContent$`), handleGenerateContent),
  google('POST', new RegExp(`${GM}${COLON}streamGenerateContent$`), handleStreamGenerateContent),
  google('POST', new RegExp(`${GM}${COLON}batchEmbedContents$`), handleBatchEmbedContents),

  cohere('POST', /^\/v2\/chat$/, (ctx) => handleCohereChat(ctx)),
  cohere('POST', /^\/v2\/embed$/, handleCohereEmbed),
];

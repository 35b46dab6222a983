// The prompt request kind's two stages (gateway-pipeline.ts runs them inside the one pipeline):
//   resolve prompt (after authorise, before resolve route): the prompt, version and label from the
//   snapshot, recorded for the request event; a provider the prompt names replaces the routing headers.
//   prompt body (instead of reading the client's body as is): the client's `{variables, ...overrides}`
//   rendered into the chat-completions body the rest of the pipeline sends, caches, guards and limits
//   (and the request log keeps: the rendered body is what the model was asked).

import { promptRequestBody, TemplateError } from '@aigw/prompt-template';
import type { PromptVersion } from '@aigw/proto';
import { gatewayError } from '../errors.js';
import { partialsOf, type SelectedPrompt, selectPrompt } from '../prompts/prompt-lookup.js';
import { parsePromptRef } from '../prompts/prompt-ref.js';
import { H, type ServiceHeaders } from '../request/service-headers.js';
import { readBody } from '../upstream/read-body.js';
import type { Caller } from './identify.js';
import type { RequestContext } from './request-context.js';

/** What a prompt completion calls upstream: the OpenAI-style chat completions of the provider. */
export const PROMPT_UPSTREAM_PATH = '/chat/completions';

const selected = new WeakMap<RequestContext, { prompt: SelectedPrompt; caller: Caller }>();

/** Headers that would route the request elsewhere than the provider the prompt names. */
const ROUTING_HEADERS = [H.config, H.deployment, H.virtualKey, H.customHost] as const;

export function resolvePrompt(ctx: RequestContext, caller: Caller | undefined, ref: string): void {
  if (!caller) {
    throw gatewayError(
      'config_unavailable',
      'saved prompts live in the control plane: this gateway runs standalone (CONTROL_PLANE_GRPC_URL is unset)',
      { param: 'prompt_id' },
    );
  }
  const prompt = selectPrompt(caller.snapshot, caller.identity.workspace.id, parsePromptRef(ref));
  selected.set(ctx, { prompt, caller });
  ctx.facts.prompt = { id: prompt.id, version: prompt.version.version, label: prompt.label };
  const provider = prompt.version.provider;
  if (provider === '') return;
  const service = ctx.service as ServiceHeaders;
  for (const name of ROUTING_HEADERS) {
    if (ctx.req.headers[name] !== undefined) {
      throw gatewayError(
        'conflicting_credentials',
        `the prompt "${prompt.slug}" is sent to ${provider}: do not send ${name}`,
        { param: name },
      );
    }
  }
  if (service.provider !== undefined && service.provider !== provider) {
    throw gatewayError(
      'conflicting_credentials',
      `the prompt "${prompt.slug}" is sent to ${provider}, not ${service.provider}: leave ${H.provider} out`,
      { param: H.provider },
    );
  }
  ctx.service = { ...service, provider };
}

interface ParsedVersion {
  readonly parameters: Record<string, unknown>;
  readonly defaults: Record<string, unknown>;
}
/** The JSON texts of a version, parsed once per snapshot object. */
const parsedVersions = new WeakMap<PromptVersion, ParsedVersion>();
function parsed(version: PromptVersion): ParsedVersion {
  let out = parsedVersions.get(version);
  if (!out) {
    out = {
      parameters: JSON.parse(version.parametersJson || '{}') as Record<string, unknown>,
      defaults: JSON.parse(version.variableDefaultsJson || '{}') as Record<string, unknown>,
    };
    parsedVersions.set(version, out);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `{variables, ...overrides}` and sets the rendered chat-completions body as the request's body. */
export async function readPromptBody(ctx: RequestContext, deps: { maxBodyBytes: number }): Promise<void> {
  const found = selected.get(ctx);
  if (!found) throw new Error('readPromptBody before resolvePrompt');
  const { prompt, caller } = found;
  const raw = await readBody(ctx.req, deps.maxBodyBytes);
  let input: unknown = {};
  if (raw.length > 0) {
    try {
      input = JSON.parse(raw.toString('utf8'));
    } catch {
      throw gatewayError('invalid_json', 'The request body is not valid JSON');
    }
  }
  if (!isObject(input)) throw gatewayError('invalid_json', 'The request body must be a JSON object');
  const { variables, ...overrides } = input;
  if (variables !== undefined && !isObject(variables)) {
    throw gatewayError('bad_request', 'variables must be an object of name -> value', { param: 'variables' });
  }
  const { parameters, defaults } = parsed(prompt.version);
  let body: Record<string, unknown>;
  try {
    body = promptRequestBody(
      { template: prompt.version.template, model: prompt.version.model, parameters, defaults },
      variables,
      overrides,
      partialsOf(caller.snapshot, caller.identity.workspace.id),
    );
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    if (err.code === 'missing_variables')
      throw gatewayError('missing_variables', err.message, { param: 'variables' });
    throw gatewayError('invalid_prompt', err.message, {
      param: err.code === 'invalid_override' ? 'messages' : 'prompt_id',
    });
  }
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  ctx.body = bytes;
  ctx.json = body;
  // The body stages and the provider see a JSON body of this length, whatever the client sent.
  const headers = ctx.req.headers;
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(bytes.length);
  delete headers['transfer-encoding'];
}

// The "refused" cells of docs/unified-api.md's tables, one by one through the one rule
// (translationFor): each is a 400 `unsupported_parameter` naming the parameter, before anything is
// sent, never a silently dropped field. A few neighbouring values that are mapped are checked too,
// so a refusal cannot pass by refusing everything.
import { describe, expect, it } from 'vitest';
import { translationFor } from './translation.js';

const chat = { model: '', messages: [{ role: 'user', content: 'x' }] };
const TOOLS = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
const MODELS: Record<string, string> = {
  anthropic: 'claude-3-5-haiku-latest',
  bedrock: 'anthropic.claude-3-haiku-20240307-v1:0',
  google: 'gemini-2.0-flash',
  'vertex-ai': 'gemini-2.0-flash',
  cohere: 'command-r-plus',
};

function outcome(providerId: string, path: string, json: Record<string, unknown>): string {
  try {
    const translation = translationFor({
      method: 'POST',
      path,
      providerId,
      cloud: { vertex: { projectId: 'p', region: 'us-central1' } } as never,
      json,
    });
    return translation ? 'translated' : 'passes through';
  } catch (err) {
    const e = err as { status?: number; code?: string; param?: string };
    return `${e.status} ${e.code} ${e.param}`;
  }
}

const chatOutcome = (providerId: string, extra: Record<string, unknown>) =>
  outcome(providerId, '/chat/completions', { ...chat, model: MODELS[providerId], ...extra });

describe('unified API: what the docs say is refused is a 400 naming it', () => {
  it.each([
    ['anthropic', { temperature: 1.5 }, 'temperature'],
    ['anthropic', { n: 2 }, 'n'],
    ['anthropic', { response_format: { type: 'json_object' }, tools: TOOLS }, 'response_format'],
    ['bedrock', { response_format: { type: 'json_object' }, tools: TOOLS }, 'response_format'],
    ['bedrock', { tools: TOOLS, tool_choice: 'none' }, 'tool_choice'],
    ['cohere', { tools: TOOLS, tool_choice: { type: 'function', function: { name: 'f' } } }, 'tool_choice'],
    ['bedrock', { tools: TOOLS, parallel_tool_calls: false }, 'parallel_tool_calls'],
    ['google', { tools: TOOLS, parallel_tool_calls: false }, 'parallel_tool_calls'],
    ['cohere', { tools: TOOLS, parallel_tool_calls: false }, 'parallel_tool_calls'],
    ['bedrock', { user: 'u' }, 'user'],
    ['vertex-ai', { user: 'u' }, 'user'],
    ['cohere', { user: 'u' }, 'user'],
    ['google', { n: 3 }, 'n'],
    ['anthropic', { logprobs: true }, 'logprobs'],
    ['bedrock', { seed: 7 }, 'seed'],
    ['google', { presence_penalty: 0.5 }, 'presence_penalty'],
    ['cohere', { frequency_penalty: 0.5 }, 'frequency_penalty'],
    ['vertex-ai', { logit_bias: { 1: 2 } }, 'logit_bias'],
    ['anthropic', { functions: [{ name: 'f' }] }, 'functions'],
    ['anthropic', { reasoning_effort: 'low' }, 'reasoning_effort'],
  ] as const)('%s: %j', (provider, extra, param) => {
    expect(chatOutcome(provider, extra)).toBe(`400 unsupported_parameter ${param}`);
  });

  it('an image URL is refused for Bedrock (Converse takes bytes) and mapped for the others', () => {
    const content = [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }];
    const messages = [{ role: 'user', content }];
    expect(chatOutcome('bedrock', { messages })).toBe('400 unsupported_parameter messages[0].content');
    for (const provider of ['anthropic', 'google', 'cohere']) {
      expect(chatOutcome(provider, { messages })).toBe('translated');
    }
  });

  it('the mapped neighbours of refused values translate', () => {
    expect(chatOutcome('anthropic', { temperature: 1, n: 1, user: 'u' })).toBe('translated');
    expect(chatOutcome('anthropic', { tools: TOOLS, parallel_tool_calls: false })).toBe('translated');
    expect(chatOutcome('bedrock', { tools: TOOLS, tool_choice: 'required' })).toBe('translated');
    expect(
      chatOutcome('google', { tools: TOOLS, tool_choice: { type: 'function', function: { name: 'f' } } }),
    ).toBe('translated');
  });

  it('embeddings: token arrays, user and Bedrock dimensions are refused; a Titan list too', () => {
    const embed = (provider: string, model: string, extra: Record<string, unknown>) =>
      outcome(provider, '/embeddings', { model, input: ['a', 'b'], ...extra });
    expect(embed('cohere', 'embed-v4.0', { input: [[1, 2]] })).toBe('400 unsupported_parameter input');
    expect(embed('google', 'text-embedding-004', { user: 'u' })).toBe('400 unsupported_parameter user');
    expect(embed('bedrock', 'cohere.embed-english-v3', { dimensions: 8 })).toBe(
      '400 unsupported_parameter dimensions',
    );
    expect(embed('bedrock', 'amazon.titan-embed-text-v2:0', {})).toBe('400 unsupported_parameter input');
    expect(embed('cohere', 'embed-v4.0', { dimensions: 8 })).toBe('translated');
  });

  it('the providers that speak OpenAI pass through whatever they are sent', () => {
    for (const provider of ['openai', 'azure-openai', 'mistral-ai', 'groq', 'openai-compatible']) {
      expect(outcome(provider, '/chat/completions', { ...chat, model: 'm', logprobs: true, seed: 1 })).toBe(
        'passes through',
      );
    }
  });
});

// Shared by the unified API's whole-gateway tests: each provider as a client names it (headers for
// the mock as its host), the model it asks for, and where the mock records the native call.
import { DEFAULT_AWS_CREDENTIALS } from '@aigw/mock-provider';
import OpenAI from 'openai';
import type { Harness } from '../../test/harness.js';

export const bedrockCredentials = {
  'x-service-cloudC-access-key-id': DEFAULT_AWS_CREDENTIALS.accessKeyId,
  'x-service-cloudC-secret-access-key': DEFAULT_AWS_CREDENTIALS.secretAccessKey,
  'x-service-cloudC-region': 'us-east-1',
  ...(DEFAULT_AWS_CREDENTIALS.sessionToken
    ? { 'x-service-cloudC-session-token': DEFAULT_AWS_CREDENTIALS.sessionToken }
    : {}),
};

export interface ChatTarget {
  readonly headers: Record<string, string>;
  readonly model: string;
  /** The path the mock records for a non-streamed call. */
  readonly path: string;
}

export type ChatTargetName =
  | 'anthropic'
  | 'bedrock'
  | 'vertex-gemini'
  | 'vertex-anthropic'
  | 'google'
  | 'cohere';

export const CHAT_TARGETS: readonly ChatTargetName[] = [
  'anthropic',
  'bedrock',
  'vertex-gemini',
  'vertex-anthropic',
  'google',
  'cohere',
];

const vertexPrefix = (region: string) => `/v1/projects/my-project/locations/${region}/publishers`;

export function chatTarget(h: Harness, name: ChatTargetName): ChatTarget {
  switch (name) {
    case 'anthropic':
      return {
        headers: { 'x-service-provider': 'anthropic', 'x-service-custom-host': `${h.mock.url}/v1` },
        model: 'claude-3-5-haiku-latest',
        path: '/v1/messages',
      };
    case 'bedrock':
      return {
        headers: {
          'x-service-provider': 'bedrock',
          'x-service-custom-host': h.mock.url,
          ...bedrockCredentials,
        },
        model: 'anthropic.claude-3-haiku-20240307-v1:0',
        path: '/model/anthropic.claude-3-haiku-20240307-v1:0/converse',
      };
    case 'vertex-gemini':
      return {
        headers: {
          'x-service-provider': 'vertex-ai',
          'x-service-custom-host': h.mock.url,
          'x-service-cloudB-project-id': 'my-project',
          'x-service-cloudB-region': 'us-central1',
        },
        model: 'gemini-2.0-flash',
        path: `${vertexPrefix('us-central1')}/google/models/gemini-2.0-flash:generateContent`,
      };
    case 'vertex-anthropic':
      return {
        headers: {
          'x-service-provider': 'vertex-ai',
          'x-service-custom-host': h.mock.url,
          'x-service-cloudB-project-id': 'my-project',
          'x-service-cloudB-region': 'us-east5',
        },
        model: 'claude-3-5-sonnet@20240620',
        path: `${vertexPrefix('us-east5')}/anthropic/models/claude-3-5-sonnet@20240620:rawPredict`,
      };
    case 'google':
      return {
        headers: { 'x-service-provider': 'google', 'x-service-custom-host': h.mock.url },
        model: 'gemini-2.0-flash',
        path: '/v1beta/models/gemini-2.0-flash:generateContent',
      };
    case 'cohere':
      return {
        headers: { 'x-service-provider': 'cohere', 'x-service-custom-host': h.mock.url },
        model: 'command-r-plus',
        path: '/v2/chat',
      };
  }
}

export function openaiClient(h: Harness, headers: Record<string, string>): OpenAI {
  return new OpenAI({
    baseURL: `${h.base}/v1`,
    apiKey: 'provider-token',
    defaultHeaders: headers,
    maxRetries: 0,
  });
}

/** The JSON body the mock received last. */
export function lastSentJson(h: Harness): Record<string, unknown> {
  const body = h.mock.requests.at(-1)?.body;
  if (!body) throw new Error('the mock recorded no request');
  return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
}

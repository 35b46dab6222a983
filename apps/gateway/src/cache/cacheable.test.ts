import { describe, expect, it } from 'vitest';
import { isCacheableRequest } from './cacheable.js';

describe('isCacheableRequest', () => {
  it.each([
    '/chat/completions',
    '/v1/chat/completions',
    '/completions',
    '/embeddings',
    '/moderations',
    '/rerank',
    '/messages',
    '/v1/messages',
    '/deployments/gpt/chat/completions',
    '/openai/deployments/gpt/embeddings',
    '/v2/chat',
    '/v2/embed',
    '/api/generate',
    '/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse',
    '/model/m/converse-stream',
    '/model/m/invoke-with-response-stream',
    '/v1/projects/p/locations/us-central1/publishers/google/models/gemini-1.5-pro:generateContent',
    '/v1/projects/p/locations/l/publishers/google/models/gemini-1.5-pro%3AstreamGenerateContent',
  ])('caches POST %s', (path) => {
    expect(isCacheableRequest('POST', path)).toBe(true);
    expect(isCacheableRequest('post', path)).toBe(true);
  });

  it.each([
    '/files',
    '/files/file-1/content',
    '/batches',
    '/messages/batches',
    '/fine_tuning/jobs',
    '/audio/transcriptions',
    '/audio/speech',
    '/images/generations',
    '/images/edits',
    '/realtime',
    '/responses',
    '/threads/t1/messages',
    '/assistants',
    '/messages/count_tokens',
    '/models',
    '/',
    '',
    '/v1/projects/p/locations/l/batchPredictionJobs',
    '/v1/projects/p/locations/l/publishers/google/models/gemini:countTokens',
    '/chat/%E0%A4%A',
  ])('never caches POST %s', (path) => {
    expect(isCacheableRequest('POST', path)).toBe(false);
  });

  it('caches no other method', () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD']) {
      expect(isCacheableRequest(method, '/chat/completions')).toBe(false);
    }
  });
});

// Test support for the prompt families: a workspace with a label, prompts and partials made through
// the admin API, and prompt-scoped keys.
import { expect } from 'vitest';
import type { ControlPlaneFixture } from '../../test/harness.js';

export {
  expectError,
  lastChange,
  memberKey,
  type Ref,
  serviceKey,
  workspace,
} from '../configs/configs.test-support.js';

export const PROMPT_SCOPES = [
  'prompts.create',
  'prompts.read',
  'prompts.list',
  'prompts.update',
  'prompts.delete',
  'prompts.render',
  'prompts.publish',
  'prompt_partials.create',
  'prompt_partials.read',
  'prompt_partials.list',
  'prompt_partials.update',
  'prompt_partials.delete',
  'collections.create',
  'collections.read',
  'collections.list',
  'collections.update',
  'collections.delete',
  'labels.create',
  'labels.read',
  'labels.list',
  'labels.update',
  'labels.delete',
];

/** POSTs and expects 201; the created body. */
export async function created(
  cp: ControlPlaneFixture,
  path: string,
  body: Record<string, unknown>,
  key?: string,
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field in the tests
): Promise<any> {
  const res = await cp.call('post', path, { body, ...(key !== undefined ? { key } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

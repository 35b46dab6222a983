// Issue 18 acceptance through the whole stack (control plane, logger, two gateway replicas on real
// Postgres and NATS, the mock provider upstream): a prompt with a partial and two versions, labelled
// `production` at v1, called as `/v1/prompts/<slug>@production/completions`, reaches the provider as
// v1's rendered messages; the label moved to v2 is served by both replicas (the delay printed); `patch:
// true` changes the current version without a new one; a workspace whose settings deny prompt edits
// answers 403; the request logs name the prompt, version and label.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { pollUntil, type Reply } from './enforcement-client.test-support.js';
import { callAs } from './logs-stack.test-support.js';
import { type PromptsWorld, test } from './prompts-stack.test-support.js';

const V1 = JSON.stringify([
  { role: 'system', content: '{{> tone}}' },
  { role: 'user', content: 'Customer {{name}} asks: {{question}}' },
]);
const V2 = JSON.stringify([
  { role: 'system', content: 'Version two. {{> tone}}' },
  { role: 'user', content: '{{question}} (from {{name}})' },
]);
const VARIABLES = { name: 'Ada', question: 'where is my order?' };
const V1_MESSAGES = [
  { role: 'system', content: 'Answer in a friendly way.' },
  { role: 'user', content: 'Customer Ada asks: where is my order?' },
];
const V2_MESSAGES = [
  { role: 'system', content: 'Version two. Answer in a friendly way.' },
  { role: 'user', content: 'where is my order? (from Ada)' },
];

interface Completion extends Reply {
  readonly text: string;
  /** The chat body the call sent to the mock provider; undefined when it sent none. */
  readonly sent: Record<string, unknown> | undefined;
}

/**
 * One prompt completion. The calls of this file run one at a time and only they reach this mock, so
 * a request the mock recorded during the call is the call's own (the gateway does not forward
 * x-service-* headers, so the trace id cannot tell).
 */
async function complete(
  world: PromptsWorld,
  gateway: string,
  key: string,
  ref: string,
  body: Record<string, unknown>,
  traceId = randomUUID(),
  extraHeaders: Record<string, string> = {},
): Promise<Completion> {
  const before = world.mock.requests.length;
  const res = await fetch(`${gateway}/v1/prompts/${ref}/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': key,
      'x-service-trace-id': traceId,
      ...extraHeaders,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a stream: kept as text
  }
  const recorded = world.mock.requests.length > before ? world.mock.requests.at(-1) : undefined;
  return {
    status: res.status,
    headers: res.headers,
    body: parsed,
    text,
    sent: recorded?.json as Record<string, unknown> | undefined,
  };
}

interface Made {
  readonly id: string;
  readonly key: string;
}

async function makePrompt(world: PromptsWorld, slug: string): Promise<Made> {
  const { admin } = world.stack;
  const ws = world.tenant.workspaceId;
  await admin.post('/prompt-partials', {
    name: `Tone ${slug}`,
    slug: `tone`,
    workspace_id: ws,
    string: 'Answer in a {{style}} way.',
  });
  const prompt = await admin.post('/prompts', {
    name: `Support ${slug}`,
    slug,
    workspace_id: ws,
    string: V1,
    model: 'gpt-4o-mini',
    provider: world.tenant.provider,
    parameters: { max_tokens: 16 },
    variables: { style: 'friendly' },
  });
  const v2 = await admin.put(`/prompts/${prompt.id}`, {
    string: V2,
    model: 'gpt-4o-mini',
    provider: world.tenant.provider,
    parameters: { max_tokens: 16 },
    variables: { style: 'friendly' },
  });
  expect(v2.latest_version).toBe(2);
  await admin.post('/labels', { name: 'production', workspace_id: ws });
  const labelled = await admin.put(`/prompts/${prompt.id}/labels/production`, { version: 1 });
  expect(labelled.labels).toEqual({ production: 1 });
  const { key } = await admin.createKey(ws, `prompts ${slug}`);
  return { id: prompt.id, key };
}

describe('prompts through the gateway (issue 18)', () => {
  test('label production -> v1 rendered at the provider; moved to v2, served by both replicas (delay printed); logs name prompt and version', async ({
    world,
  }) => {
    const { id, key } = await makePrompt(world, 'support-reply');
    // The key and prompt reach each replica with its snapshot; until then 401/404.
    for (const gateway of world.gateways) {
      await pollUntil(
        async () =>
          (await complete(world, gateway, key, 'support-reply@production', { variables: VARIABLES })).status,
        (status) => status === 200,
        { boundMs: 15_000, intervalMs: 25, what: 'prompt served' },
      );
    }

    const traceV1 = randomUUID();
    const first = await complete(
      world,
      world.gateways[0],
      key,
      'support-reply@production',
      { variables: VARIABLES },
      traceV1,
    );
    expect(first.status, first.text).toBe(200);
    expect(first.body.object).toBe('chat.completion');
    expect(first.sent).toEqual({ model: 'gpt-4o-mini', max_tokens: 16, messages: V1_MESSAGES });

    // Move the label; each replica serves v2. How soon is printed, not asserted (a timed assertion would
    // fail on a loaded machine): the propagation target of a second is measured here and in
    // docs/outbox.md, and the bound below only guards against a hang.
    await world.stack.admin.put(`/prompts/${id}/labels/production`, { version: 2 });
    const moved = performance.now();
    const delays: number[] = [];
    for (const gateway of world.gateways) {
      const { value: reply, at } = await pollUntil(
        async () => {
          const reply = await complete(world, gateway, key, 'support-reply@production', {
            variables: VARIABLES,
          });
          expect(reply.status, reply.text).toBe(200);
          return reply;
        },
        (reply) => JSON.stringify(reply.sent?.messages) === JSON.stringify(V2_MESSAGES),
        { boundMs: 15_000, intervalMs: 5, what: `v2 on ${gateway}` },
      );
      delays.push(at - moved);
      expect(reply.sent).toEqual({ model: 'gpt-4o-mini', max_tokens: 16, messages: V2_MESSAGES });
    }
    console.log(
      `[prompt label propagation] both replicas: ${delays.map((d) => d.toFixed(1)).join(' ms, ')} ms`,
    );

    // The other forms of reference: the id and the bare slug serve the published version (v1: a new
    // version is not published), `slug@<n>` that version, whatever the labels say.
    for (const [ref, messages] of [
      [id, V1_MESSAGES],
      ['support-reply', V1_MESSAGES],
      ['support-reply@1', V1_MESSAGES],
      ['support-reply@2', V2_MESSAGES],
    ] as const) {
      const reply = await complete(world, world.gateways[0], key, ref, { variables: VARIABLES });
      expect([ref, reply.status, reply.sent?.messages]).toEqual([ref, 200, messages]);
    }
    const noVersion = await complete(world, world.gateways[0], key, 'support-reply@3', {
      variables: VARIABLES,
    });
    expect([noVersion.status, noVersion.body.error.code]).toEqual([404, 'prompt_not_found']);

    // Overrides (stream, max_tokens) go through like any chat completion, streamed.
    const streamTrace = randomUUID();
    const streamed = await complete(
      world,
      world.gateways[1],
      key,
      'support-reply@production',
      { variables: VARIABLES, stream: true, max_tokens: 3 },
      streamTrace,
    );
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    expect(streamed.text).toContain('data: [DONE]');
    expect(streamed.sent).toMatchObject({
      stream: true,
      max_tokens: 3,
      messages: V2_MESSAGES,
    });

    // The request log names the prompt, the version and the label.
    const { value: logs } = await pollUntil(
      () => world.stack.admin.expect(200, 'GET', `/logs?trace_id=${traceV1}`),
      (list) => list.data.length > 0,
      { boundMs: 20_000, intervalMs: 100, what: 'log of the v1 call' },
    );
    expect(logs.data[0]).toMatchObject({
      prompt_id: id,
      prompt_version: 1,
      prompt_label: 'production',
      path: '/prompts/support-reply@production/completions',
      status_code: 200,
      model: 'gpt-4o-mini',
    });
    const { value: logs2 } = await pollUntil(
      () => world.stack.admin.expect(200, 'GET', `/logs?trace_id=${streamTrace}`),
      (list) => list.data.length > 0,
      { boundMs: 20_000, intervalMs: 100, what: 'log of the streamed call' },
    );
    expect(logs2.data[0]).toMatchObject({ prompt_id: id, prompt_version: 2, is_stream: true });
    // By prompt id, both calls are found among the others.
    const byPrompt = await world.stack.admin.expect(200, 'GET', `/logs?prompt_id=${id}&page_size=500`);
    expect(byPrompt.data.length).toBeGreaterThanOrEqual(2);
  });

  test('patch: true changes the current version in place; missing variables are a 400 naming them', async ({
    world,
  }) => {
    const { admin } = world.stack;
    const ws = world.tenant.workspaceId;
    const prompt = await admin.post('/prompts', {
      name: 'Patched',
      slug: 'patched',
      workspace_id: ws,
      string: 'Hello {{who}}',
      model: 'gpt-4o-mini',
      provider: world.tenant.provider,
      parameters: { max_tokens: 8 },
    });
    const { key } = await admin.createKey(ws, 'patch');
    await pollUntil(
      async () =>
        (await complete(world, world.gateways[0], key, 'patched', { variables: { who: 'x' } })).status,
      (status) => status === 200,
      { boundMs: 15_000, intervalMs: 25, what: 'prompt served' },
    );
    const patched = await admin.put(`/prompts/${prompt.id}`, { patch: true, parameters: { max_tokens: 5 } });
    expect([patched.latest_version, patched.default_version]).toEqual([1, 1]);
    expect((await admin.expect(200, 'GET', `/prompts/${prompt.id}/versions`)).total).toBe(1);
    expect(patched.version).toMatchObject({
      string: 'Hello {{who}}',
      model: 'gpt-4o-mini',
      parameters: { max_tokens: 5 },
    });
    await pollUntil(
      async () =>
        (await complete(world, world.gateways[0], key, 'patched', { variables: { who: 'Bo' } })).sent,
      (sent) => sent?.max_tokens === 5,
      { boundMs: 5_000, intervalMs: 10, what: 'patched version served' },
    );

    const missing = await complete(world, world.gateways[0], key, 'patched', { variables: {} });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('x-service-gateway-error')).toBe('true');
    expect(missing.body.error).toMatchObject({ code: 'missing_variables', param: 'variables' });
    expect(missing.body.error.message).toContain('who');
    const unknown = await complete(world, world.gateways[0], key, 'patched@nope', {
      variables: { who: 'x' },
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'prompt_not_found']);
  });

  test('a workspace whose settings deny prompts answers 403; a key of another workspace gets 404; a key without completions.write gets 403', async ({
    world,
  }) => {
    const { admin } = world.stack;
    const ws = world.tenant.workspaceId;
    const prompt = await admin.post('/prompts', {
      name: 'Guarded',
      slug: 'guarded',
      workspace_id: ws,
      string: 'hi',
    });
    const scopes = ['prompts.read', 'prompts.list', 'prompts.update', 'prompts.publish', 'completions.write'];
    const manager = await admin.post('/api-keys/workspace/service', {
      name: 'prompt manager',
      workspace_id: ws,
      scopes,
    });
    await admin.put(`/workspaces/${ws}`, {
      settings: { managersWritePrompts: false, managersViewPrompts: false },
    });
    const write = await callAs(world.stack, manager.key, 'PUT', `/prompts/${prompt.id}`, {
      string: 'changed',
    });
    expect(write.status).toBe(403);
    expect(write.body.error.message).toContain('managersWritePrompts=false');
    const read = await callAs(world.stack, manager.key, 'GET', `/prompts/${prompt.id}`);
    expect(read.status).toBe(403);
    expect(read.body.error.message).toContain('managersViewPrompts=false');
    expect((await admin.expect(200, 'GET', `/prompts/${prompt.id}`)).version.string).toBe('hi');

    // Another workspace's key finds nothing, on the admin API or the gateway.
    const other = await admin.post('/workspaces', { name: 'Prompts other' });
    const outsider = await admin.createKey(other.id, 'outsider');
    const theirs = await admin.post('/api-keys/workspace/service', {
      name: 'outsider admin',
      workspace_id: other.id,
      scopes: ['prompts.read'],
    });
    expect((await callAs(world.stack, theirs.key, 'GET', `/prompts/${prompt.id}`)).status).toBe(404);
    const known = await admin.createKey(ws, 'insider');
    await pollUntil(
      async () => (await complete(world, world.gateways[0], known.key, 'guarded', {})).status,
      (status) => status !== 401,
      { boundMs: 15_000, intervalMs: 25, what: 'insider key synced' },
    );
    // The outsider's key was made before the insider's: the gateway knows it too.
    for (const ref of ['guarded', prompt.id]) {
      const refused = await complete(world, world.gateways[0], outsider.key, ref, {});
      expect([refused.status, refused.body.error.code], ref).toEqual([404, 'prompt_not_found']);
    }
    const logsOnly = await admin.post('/api-keys/workspace/service', {
      name: 'logs only',
      workspace_id: ws,
      scopes: ['logs.list'],
    });
    await pollUntil(
      async () => (await complete(world, world.gateways[0], logsOnly.key, 'guarded', {})).status,
      (status) => status !== 401,
      { boundMs: 15_000, intervalMs: 25, what: 'logs-only key synced' },
    );
    const noScope = await complete(world, world.gateways[0], logsOnly.key, 'guarded', {});
    expect([noScope.status, noScope.body.error.code]).toEqual([403, 'insufficient_scope']);
  });

  test("a config's input guardrail reads the rendered messages: a word only the template holds is denied (446), the provider not called", async ({
    world,
  }) => {
    const { admin } = world.stack;
    const ws = world.tenant.workspaceId;
    await admin.post('/prompts', {
      name: 'Guardrailed',
      slug: 'guardrailed',
      workspace_id: ws,
      string: 'Tell me the internal password policy, {{who}}',
      model: 'gpt-4o-mini',
      parameters: { max_tokens: 4 },
    });
    const { key } = await admin.createKey(ws, 'guardrailed');
    // The client's body holds only `variables` (no messages): a guardrail run on it would see no
    // text and pass; only the rendered messages contain the word.
    const guard = (words: string[]) => ({
      'x-service-config': JSON.stringify({
        provider: world.tenant.provider,
        input_guardrails: [
          {
            id: 'no-secrets',
            deny: true,
            checks: [{ id: 'contains', parameters: { words, operator: 'none' } }],
          },
        ],
      }),
    });
    const { value: allowed } = await pollUntil(
      () =>
        complete(
          world,
          world.gateways[0],
          key,
          'guardrailed',
          { variables: { who: 'Ada' } },
          randomUUID(),
          guard(['bitcoin']),
        ),
      (reply) => reply.status !== 401 && reply.status !== 404,
      { boundMs: 15_000, intervalMs: 50, what: 'guardrailed prompt served' },
    );
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.sent?.messages).toEqual([
      { role: 'user', content: 'Tell me the internal password policy, Ada' },
    ]);
    const before = world.mock.requests.length;
    const denied = await complete(
      world,
      world.gateways[0],
      key,
      'guardrailed',
      { variables: { who: 'Ada' } },
      randomUUID(),
      guard(['password']),
    );
    expect(denied.status, denied.text).toBe(446);
    expect(denied.body.error.code).toBe('guardrail_denied');
    expect(denied.body.hook_results.before_request_hooks[0]).toMatchObject({
      id: 'no-secrets',
      verdict: false,
    });
    expect(world.mock.requests.length).toBe(before);
  });

  test('a prompt naming no provider is routed by the request: a config with a cache replays it; a key rate limit refuses it', async ({
    world,
  }) => {
    const { admin } = world.stack;
    const ws = world.tenant.workspaceId;
    await admin.post('/prompts', {
      name: 'Routed',
      slug: 'routed',
      workspace_id: ws,
      string: 'Cache me, {{who}}',
      model: 'gpt-4o-mini',
      parameters: { max_tokens: 4 },
    });
    const { key } = await admin.createKey(ws, 'routed', {
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 4 }],
    });
    const config = JSON.stringify({
      provider: world.tenant.provider,
      cache: { mode: 'simple', max_age: 600 },
    });
    const headers = { 'x-service-config': config };
    const { value: first } = await pollUntil(
      () =>
        complete(
          world,
          world.gateways[0],
          key,
          'routed',
          { variables: { who: 'Ada' } },
          randomUUID(),
          headers,
        ),
      (reply) => reply.status !== 401 && reply.status !== 404,
      { boundMs: 15_000, intervalMs: 50, what: 'routed prompt served' },
    );
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('x-service-cache-status')).toBe('MISS');
    expect(first.sent?.messages).toEqual([{ role: 'user', content: 'Cache me, Ada' }]);
    const second = await complete(
      world,
      world.gateways[0],
      key,
      'routed',
      { variables: { who: 'Ada' } },
      randomUUID(),
      headers,
    );
    expect(second.status).toBe(200);
    expect(second.headers.get('x-service-cache-status')).toBe('HIT');
    expect(second.sent).toBeUndefined();
    expect(second.text).toBe(first.text);
    // A prompt that names its provider refuses a config that would send it elsewhere.
    const conflict = await complete(
      world,
      world.gateways[0],
      key,
      'support-reply',
      { variables: VARIABLES },
      randomUUID(),
      headers,
    );
    expect([conflict.status, conflict.body.error?.code]).toEqual([400, 'conflicting_credentials']);
    // The key's 4 requests a minute: the calls above, then refusals.
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) {
      statuses.push(
        (
          await complete(
            world,
            world.gateways[0],
            key,
            'routed',
            { variables: { who: `n${n}` } },
            randomUUID(),
            headers,
          )
        ).status,
      );
    }
    expect(statuses).toContain(429);
    expect(statuses.slice(statuses.indexOf(429)).every((s) => s === 429)).toBe(true);
  });
});

// Saved guardrails named by configs, end to end in control-plane mode over a snapshot: by slug and
// by id, from inline and saved configs, organisation-level ones, tenant isolation (another
// workspace's or organisation's guardrail never resolves), archived ones, and edits taking effect
// with the next snapshot although the config text is cached. Partner checks: saved-guardrails.partner.int.test.ts.
import { randomUUID } from 'node:crypto';
import { type Entity, EntityStatus } from '@aigw/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  savedConfig,
  savedGuardrail,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';

const ORG = randomUUID();
const OTHER_ORG = randomUUID();
const WS = randomUUID();
const OTHER_WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const INT = randomUUID();
const GUARD_ID = randomUUID();
const OTHER_WS_GUARD = randomUUID();
const CONFIG_ID = randomUUID();

let gw: ControlPlaneGateway;
let base: Entity[];

/** A guardrail as the control plane publishes it (`body_json` = `{checks, actions, async}`). */
function guardrail(
  id: string,
  organisationId: string,
  workspaceId: string,
  slug: string,
  words: string[],
  fields: { version?: number; status?: EntityStatus; deny?: boolean; checkId?: string } = {},
): Entity {
  return savedGuardrail(
    id,
    organisationId,
    workspaceId,
    slug,
    {
      checks: [{ id: fields.checkId ?? 'contains', parameters: { words, operator: 'none' } }],
      actions: { deny: fields.deny ?? true },
    },
    fields,
  );
}

function ask(config: unknown, content: string, headers: Record<string, string> = {}) {
  return fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': KEY,
      'x-service-config': typeof config === 'string' ? config : JSON.stringify(config),
      ...headers,
    },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
  });
}

const withGuard = (...refs: string[]) => ({ provider: '@openai-prod', input_guardrails: refs });

async function refusal(res: Response) {
  expect(res.status).toBe(400);
  return ((await res.json()) as { error: { code: string; param: string; message: string } }).error;
}

beforeAll(async () => {
  gw = await startControlPlaneGateway([], {}, { apiKeys: { openai: ['sk-managed'] } });
  base = [
    organisation(ORG),
    organisation(OTHER_ORG),
    workspace(WS, ORG),
    workspace(OTHER_WS, ORG),
    apiKey(KEY, ORG, WS),
    integration(INT, ORG, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: `${gw.mock.url}/v1` },
    }),
    provider(randomUUID(), ORG, WS, 'openai-prod', { integrationId: INT }),
    guardrail(GUARD_ID, ORG, WS, 'no-secrets', ['secret']),
    guardrail(OTHER_WS_GUARD, ORG, OTHER_WS, 'elsewhere', ['secret']),
    guardrail(randomUUID(), ORG, '', 'org-guard', ['orgword']),
    guardrail(randomUUID(), OTHER_ORG, '', 'foreign-org-guard', ['secret']),
    // Same slug in another organisation, later in the snapshot: it must not shadow this one.
    guardrail(randomUUID(), OTHER_ORG, '', 'org-guard', ['secret']),
    guardrail(randomUUID(), ORG, WS, 'archived', ['secret'], { status: EntityStatus.ARCHIVED }),
    // A check id this gateway does not know (a newer control plane's): refused, never run in part.
    guardrail(randomUUID(), ORG, WS, 'unknown-check', ['x'], { checkId: 'toxicity' }),
    savedConfig(CONFIG_ID, ORG, WS, 'guarded', withGuard('no-secrets')),
  ];
  gw.use(base);
});

afterAll(async () => {
  await gw?.close();
});

describe('saved guardrails in configs', () => {
  it('a guardrail named by slug denies (446) without calling the provider, and passes clean requests', async () => {
    gw.mock.clear();
    const trace = randomUUID();
    const denied = await ask(withGuard('no-secrets'), 'the secret is 42', { 'x-service-trace-id': trace });
    expect(denied.status).toBe(446);
    const body = (await denied.json()) as {
      hook_results: { before_request_hooks: { id: string; deny: boolean }[] };
    };
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ id: 'no-secrets', deny: true });
    expect(gw.mock.requests).toEqual([]);
    // The request event names the saved guardrail by its id.
    const event = await gw.eventFor(trace);
    expect(event.guardrailResults).toMatchObject([{ guardrailId: GUARD_ID, denied: true }]);
    const passed = await ask(withGuard('no-secrets'), 'hello');
    expect(passed.status).toBe(200);
    expect(gw.mock.requests).toHaveLength(1);
  });

  it('a guardrail named by id denies too', async () => {
    expect((await ask(withGuard(GUARD_ID), 'a secret')).status).toBe(446);
    expect((await ask(withGuard(GUARD_ID), 'nothing to hide')).status).toBe(200);
  });

  it('a saved config that names a guardrail runs it', async () => {
    expect((await ask(CONFIG_ID, 'the secret')).status).toBe(446);
    expect((await ask('guarded', 'the secret')).status).toBe(446);
    expect((await ask('guarded', 'fine')).status).toBe(200);
  });

  it("the organisation's own guardrails resolve in every workspace of it", async () => {
    expect((await ask(withGuard('org-guard'), 'an orgword here')).status).toBe(446);
    expect((await ask(withGuard('org-guard'), 'fine')).status).toBe(200);
    expect((await ask(withGuard('org-guard'), 'a secret')).status).toBe(200);
  });

  it("another workspace's or organisation's guardrail does not resolve, by slug nor by id", async () => {
    gw.mock.clear();
    const cases = [
      withGuard('elsewhere'),
      withGuard(OTHER_WS_GUARD),
      withGuard('foreign-org-guard'),
      { provider: '@openai-prod', output_guardrails: ['no-secrets', 'elsewhere'] },
    ];
    const params = [
      'config.input_guardrails[0]',
      'config.input_guardrails[0]',
      'config.input_guardrails[0]',
      'config.output_guardrails[1]',
    ];
    for (const [i, config] of cases.entries()) {
      const err = await refusal(await ask(config, 'fine'));
      expect(err.code).toBe('guardrail_not_found');
      expect(err.param).toBe(params[i]);
      expect(err.message).toContain('does not exist in this workspace');
    }
    expect(gw.mock.requests).toEqual([]);
  });

  it('unknown and archived guardrails are 400s naming the field; a check this gateway cannot run is config_unavailable', async () => {
    const unknown = await refusal(
      await ask({ strategy: { mode: 'fallback' }, targets: [withGuard('nope')] }, 'x'),
    );
    expect(unknown).toMatchObject({
      code: 'guardrail_not_found',
      param: 'config.targets[0].input_guardrails[0]',
    });
    const archived = await refusal(await ask(withGuard('archived'), 'x'));
    expect(archived).toMatchObject({ code: 'guardrail_not_found', param: 'config.input_guardrails[0]' });
    expect(archived.message).toContain('archived');
    // Third-party (`partner.<name>`) checks run: saved-guardrails.partner.int.test.ts.
    const unrunnable = await refusal(await ask(withGuard('unknown-check'), 'x'));
    expect(unrunnable).toMatchObject({ code: 'config_unavailable', param: 'config.input_guardrails[0]' });
    expect(unrunnable.message).toContain('cannot run');
  });

  it('an edited guardrail takes effect with the next snapshot, for the same cached config text', async () => {
    const config = withGuard('no-secrets');
    expect((await ask(config, 'banana')).status).toBe(200);
    expect((await ask(CONFIG_ID, 'banana')).status).toBe(200);
    const edited = guardrail(GUARD_ID, ORG, WS, 'no-secrets', ['banana'], { version: 2 });
    gw.use(base.map((e) => (e.id === GUARD_ID ? edited : e)));
    expect((await ask(config, 'banana')).status).toBe(446);
    expect((await ask(config, 'the secret')).status).toBe(200);
    expect((await ask(CONFIG_ID, 'banana')).status).toBe(446);
    // Archived in the next snapshot: refused from then on.
    const archived = guardrail(GUARD_ID, ORG, WS, 'no-secrets', ['banana'], {
      version: 3,
      status: EntityStatus.ARCHIVED,
    });
    gw.use(base.map((e) => (e.id === GUARD_ID ? archived : e)));
    expect((await refusal(await ask(config, 'fine'))).code).toBe('guardrail_not_found');
    gw.use(base);
  });
});

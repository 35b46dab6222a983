// Issue 19, deployments, through the whole stack: docs/admin-api/deployments.md's curl examples run
// as written (each must succeed); a deployment's config routes a request, a moved deployment serves
// its new config, a key of another workspace cannot use it, and a deleted one is no longer served.
import { describe, expect } from 'vitest';
import { type DocExample, docExamples, lastJson, runExample } from './doc-examples.test-support.js';
import { pollUntil } from './enforcement-client.test-support.js';
import { PROVIDER_SECRET, test } from './enforcement-stack.test-support.js';

const PAGE = new URL('../../docs/admin-api/deployments.md', import.meta.url);

describe('deployments (docs/admin-api/deployments.md)', () => {
  test('every curl example runs as written, and the deployment routes by its config', async ({ e2e }) => {
    const { stack } = e2e;
    const admin = stack.admin;
    const team = await admin.post('/workspaces', { name: 'My team', slug: 'my-team' });
    const other = await admin.post('/workspaces', { name: 'Other team', slug: 'other-team' });
    await admin.post('/integrations', {
      name: 'Docs mock',
      ai_provider: 'openai',
      credentials: { api_key: PROVIDER_SECRET },
      options: { custom_host: `${stack.mock.url}/v1` },
      workspaces: [{ id: team.id }, { id: other.id }],
      default_provider_slug: 'my-openai',
    });
    const env = {
      CP: `${admin.baseUrl()}/v1`,
      KEY: admin.key,
      GW: `${stack.gatewayBase(0)}/v1`,
      KEY_WS: (await admin.createKey(team.id, 'docs')).key,
    };
    const otherEnv = { ...env, KEY_WS: (await admin.createKey(other.id, 'other')).key };

    const examples = docExamples(PAGE);
    expect(examples.length).toBe(8);
    const gatewayCall = examples.find((e) => e.script.includes('$GW'));
    if (!gatewayCall) throw new Error('the page shows no gateway call');
    /** The model the gateway call's answer names (the mock echoes it): which config ran. */
    const servedModel = async (example: DocExample, withEnv = env) => {
      const result = await runExample(example, withEnv);
      return result.ok ? (lastJson(result.stdout).model as string) : `failed: ${result.stdout}`;
    };

    const models: string[] = [];
    for (const example of examples) {
      if (example === gatewayCall) {
        // The gateway serves the deployment once its snapshot has it.
        const { value } = await pollUntil(
          () => servedModel(example),
          (m) => m === 'gpt-4o-mini',
          {
            boundMs: 15_000,
            intervalMs: 50,
            what: `line ${example.line}`,
          },
        );
        models.push(value);
        continue;
      }
      const result = await runExample(example, env);
      expect([example.line, result]).toEqual([example.line, { ok: true, stdout: result.stdout }]);
      if (example.script.includes('-X PUT')) {
        // Moved to the green config: the gateway serves it (polled: no timing assertion).
        const moved = await pollUntil(
          () => servedModel(gatewayCall),
          (m) => m === 'gpt-4o',
          {
            boundMs: 15_000,
            intervalMs: 50,
            what: 'the moved deployment served',
          },
        );
        models.push(moved.value);
        // A key of another workspace finds no such deployment, by slug or id.
        const prod = await admin.expect(200, 'GET', '/deployments/prod?workspace_id=my-team');
        for (const ref of ['prod', prod.id]) {
          const refused = await runExample(
            {
              line: 0,
              script: gatewayCall.script.replace(
                'x-service-deployment: prod',
                `x-service-deployment: ${ref}`,
              ),
            },
            otherEnv,
          );
          expect(refused.ok).toBe(false);
          expect([ref, lastJson(refused.stdout).error.code]).toEqual([ref, 'deployment_not_found']);
        }
      }
    }
    expect(models).toEqual(['gpt-4o-mini', 'gpt-4o']);
    // Deleted (the page's last example): the gateway stops serving it.
    await pollUntil(
      () => runExample(gatewayCall, env),
      (r) => !r.ok && lastJson(r.stdout).error?.code === 'deployment_not_found',
      { boundMs: 15_000, intervalMs: 50, what: 'the deleted deployment refused' },
    );
  });
});

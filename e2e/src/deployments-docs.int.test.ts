// Issue 19, deployments, through the whole stack: docs/admin-api/deployments.md's curl examples run
// as written (each must answer its `# expect:` status); a deployment's config routes a request, a
// moved deployment serves its new config, and a key of another workspace cannot use it.
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { docExamples, runExample } from './doc-examples.test-support.js';
import { pollUntil } from './enforcement-client.test-support.js';
import { PROVIDER_SECRET, test } from './enforcement-stack.test-support.js';

const PAGE = fileURLToPath(new URL('../../docs/admin-api/deployments.md', import.meta.url));

describe('deployments (docs/admin-api/deployments.md)', () => {
  test('every curl example answers as documented, and the deployment routes by its config', async ({
    e2e,
  }) => {
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
    const teamKey = await admin.createKey(team.id, 'docs');
    const otherKey = await admin.createKey(other.id, 'other');
    const env = {
      CP: `${admin.baseUrl()}/v1`,
      KEY: admin.key,
      GW: `${stack.gatewayBase(0)}/v1`,
      KEY_WS: teamKey.key,
    };

    const examples = docExamples(PAGE);
    expect(examples.length).toBeGreaterThanOrEqual(8);
    const gatewayCall = examples.find((e) => e.command.includes('$GW'));
    if (!gatewayCall) throw new Error('the page shows no gateway call');
    const models: string[] = [];
    for (const example of examples) {
      const toGateway = example.command.includes('$GW');
      // The gateway learns of a change within a moment: its examples are retried until it has.
      const { value: reply } = toGateway
        ? await pollUntil(
            () => runExample(example, env),
            (r) =>
              r.status === example.expect &&
              r.body?.model === (models.length === 0 ? 'gpt-4o-mini' : 'gpt-4o'),
            { boundMs: 15_000, intervalMs: 50, what: `line ${example.line}` },
          )
        : { value: await runExample(example, env) };
      expect([example.line, reply.status, reply.body]).toEqual([example.line, example.expect, reply.body]);
      if (toGateway) models.push(reply.body.model);

      if (example.command.includes('-X PUT')) {
        // Moved to the green config: the gateway serves it (polled: no timing assertion).
        const moved = await pollUntil(
          () => runExample(gatewayCall, env),
          (r) => r.status === 200 && r.body?.model === 'gpt-4o',
          { boundMs: 15_000, intervalMs: 50, what: 'the moved deployment served' },
        );
        models.push(moved.value.body.model);
        // A key of another workspace finds no such deployment, by slug or id.
        const prod = await admin.expect(200, 'GET', '/deployments/prod?workspace_id=my-team');
        for (const ref of ['prod', prod.id]) {
          const refused = await runExample(
            {
              line: 0,
              expect: 400,
              command: `curl -s "$GW/chat/completions" -H "x-service-api-key: $KEY_WS" -H 'x-service-deployment: ${ref}' -H 'content-type: application/json' -d '{"messages": [{"role": "user", "content": "Hello"}]}'`,
            },
            { ...env, KEY_WS: otherKey.key },
          );
          expect([ref, refused.status, refused.body.error?.code]).toEqual([ref, 400, 'deployment_not_found']);
        }
      }
    }
    expect(models).toEqual(['gpt-4o-mini', 'gpt-4o']);
    // Deleted: the gateway stops serving it.
    await pollUntil(
      () => runExample(gatewayCall, env),
      (r) => r.status === 400 && r.body?.error?.code === 'deployment_not_found',
      { boundMs: 15_000, intervalMs: 50, what: 'the deleted deployment refused' },
    );
  });
});

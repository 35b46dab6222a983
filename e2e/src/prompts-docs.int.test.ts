// docs/admin-api/prompts.md stays true: every `sh` example of the page runs, in order, against the
// whole stack (control plane, gateway, mock provider), and must succeed (`curl --fail-with-body`).
// The first block (placeholders for CP, KEY, GW, APIKEY, WS, PROVIDER) is replaced by the stack's.
import { describe, expect } from 'vitest';
import { docExamples, runExample } from './doc-examples.test-support.js';
import { pollUntil } from './enforcement-client.test-support.js';
import { test } from './prompts-stack.test-support.js';

const PAGE = new URL('../../docs/admin-api/prompts.md', import.meta.url);

describe('docs/admin-api/prompts.md', () => {
  test('every curl example runs as written', async ({ world }) => {
    const examples = docExamples(PAGE);
    expect(examples.length).toBe(8);
    const { key } = await world.stack.admin.createKey(world.tenant.workspaceId, 'docs');
    const env = {
      CP: `${world.stack.controlPlaneBase}/v1`,
      KEY: world.stack.env.BOOTSTRAP_ADMIN_KEY as string,
      GW: `${world.gateways[0]}/v1`,
      APIKEY: key,
      WS: world.tenant.workspaceId,
      PROVIDER: world.tenant.provider,
    };
    const outputs: string[] = [];
    for (const example of examples) {
      if (example.script.includes('$GW')) {
        // The gateway serves the key and prompt once its snapshot has them.
        const { value } = await pollUntil(
          () => runExample(example, env),
          (r) => r.ok,
          { boundMs: 15_000, intervalMs: 50, what: `gateway example at line ${example.line}` },
        );
        outputs.push(value.stdout);
      } else {
        const result = await runExample(example, env);
        if (!result.ok)
          throw new Error(`example at line ${example.line} failed:\n${example.script}\n${result.stdout}`);
        outputs.push(result.stdout);
      }
    }
    const all = outputs.map((o) => o.trim()).join('\n');
    expect(all).toContain('"object":"prompt_render"');
    expect(all).toContain('"content":"Ada asks: Where is my order?"');
    expect(all).toContain('"object":"chat.completion"');
    // The examples made two versions, published v2, labelled v1 production, filed it in a collection.
    const prompt = await world.stack.admin.expect(
      200,
      'GET',
      `/prompts/support-reply?workspace_id=${world.tenant.workspaceId}`,
    );
    expect(prompt).toMatchObject({ latest_version: 2, default_version: 2, labels: { production: 1 } });
    expect(prompt.version.parameters).toEqual({ max_tokens: 50 });
    expect(prompt.collection_id).not.toBeNull();
  });
});

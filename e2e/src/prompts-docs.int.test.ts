// docs/admin-api/prompts.md stays true: every `sh` example of the page runs, in order, against the
// whole stack (control plane, gateway, mock provider), and must succeed (`curl --fail-with-body`).
// The first block (placeholders for CP, KEY, GW, APIKEY, WS, PROVIDER) is replaced by the stack's.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { pollUntil } from './enforcement-client.test-support.js';
import { test } from './prompts-stack.test-support.js';

const run = promisify(execFile);
const PAGE = new URL('../../docs/admin-api/prompts.md', import.meta.url);

function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

describe('docs/admin-api/prompts.md', () => {
  test('every curl example runs as written', async ({ world }) => {
    const blocks = shellBlocks(readFileSync(PAGE, 'utf8'));
    expect(blocks[0]).toContain('export CP=');
    const examples = blocks.slice(1);
    expect(examples.length).toBe(8);
    const { key } = await world.stack.admin.createKey(world.tenant.workspaceId, 'docs');
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      CP: `${world.stack.controlPlaneBase}/v1`,
      KEY: world.stack.env.BOOTSTRAP_ADMIN_KEY as string,
      GW: `${world.gateways[0]}/v1`,
      APIKEY: key,
      WS: world.tenant.workspaceId,
      PROVIDER: world.tenant.provider,
    };
    const outputs: string[] = [];
    for (const block of examples) {
      const script = `set -euo pipefail\n${block}`;
      const exec = () => run('bash', ['-c', script], { env, timeout: 20_000 });
      if (block.includes('$GW')) {
        // The gateway serves the key and prompt once its snapshot has them.
        const { value } = await pollUntil(
          () =>
            exec().then(
              (r) => r.stdout,
              (err: { stdout?: string }) => `failed: ${err.stdout ?? ''}`,
            ),
          (out) => !out.startsWith('failed:'),
          { boundMs: 15_000, intervalMs: 50, what: 'gateway example' },
        );
        outputs.push(value);
      } else {
        try {
          outputs.push((await exec()).stdout);
        } catch (err) {
          throw new Error(`example failed:\n${block}\n${(err as { stdout?: string }).stdout ?? err}`);
        }
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

// The quick start's demo provider: the mock provider on loopback serving as `@demo` in the first
// workspace of the bootstrapped organisation, with a workspace key kept in the data directory, so a
// new user can make a call before having any provider key. Only `pnpm start` sets this up (nothing
// in the apps knows about it); AIGW_DEMO=0 turns it off.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { AdminApiError, type AdminClient } from './admin-client.js';

export const DEMO_SLUG = 'demo';
/** Marks the integration the stack made, so an integration `demo` of the user's own is never touched. */
export const DEMO_TAG = { key: 'aigw-demo', value: 'pnpm-start' } as const;
export const DEMO_KEY_NAME = 'demo (pnpm start)';
export const DEMO_KEY_FILE = 'demo.key';
/**
 * The only key the demo mock accepts, stored as the integration's credential: an answer proves the
 * gateway sent the managed credential. Not a secret: the mock is a local fake that calls nothing.
 */
export const DEMO_PROVIDER_KEY = 'aigw-demo-mock-provider-key';
/** What the demo key may do: call providers, and read its workspace's logs and analytics. */
export const DEMO_KEY_SCOPES = ['completions.write', 'logs.list', 'logs.view', 'analytics.view'];

/** The mock provider on 127.0.0.1 (never another interface), recording nothing. */
export async function startDemoProvider(port: number): Promise<MockProvider> {
  try {
    return await createMockProvider({
      host: '127.0.0.1',
      port,
      apiKeys: { openai: [DEMO_PROVIDER_KEY] },
      maxRecorded: 0,
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `the demo provider cannot listen on 127.0.0.1:${port} (${reason}): set DEMO_PROVIDER_PORT, or AIGW_DEMO=0 to run without it`,
    );
  }
}

export interface DemoSetup {
  readonly workspaceId: string;
  readonly workspaceName: string;
  /** Where the demo workspace key is (owner-only); its value is never printed. */
  readonly keyFile: string;
  /** What this start created (empty when everything was there from an earlier start). */
  readonly created: readonly string[];
}

/**
 * Makes sure the demo integration, its `@demo` provider and a working demo key exist, creating only
 * what is missing: a restart on the same data directory reuses everything. Only a moved mock
 * (another DEMO_PROVIDER_PORT) changes the integration.
 */
export async function ensureDemo(options: {
  admin: AdminClient;
  mockUrl: string;
  dataDir: string;
}): Promise<DemoSetup> {
  const { admin } = options;
  const created: string[] = [];
  const customHost = `${options.mockUrl}/v1`;

  const found = await admin.call('GET', `/integrations/${DEMO_SLUG}`);
  if (found.status === 200) {
    if (found.body?.tags?.[DEMO_TAG.key] !== DEMO_TAG.value) {
      throw new Error(`an integration "${DEMO_SLUG}" exists that pnpm start did not create: left alone`);
    }
    if (found.body.options?.custom_host !== customHost) {
      await admin.expect('PUT', `/integrations/${DEMO_SLUG}`, [200], {
        options: { custom_host: customHost },
      });
    }
  } else if (found.status === 404) {
    const workspace = await firstWorkspace(admin, created);
    await admin.expect('POST', '/integrations', [201], {
      name: 'Demo (mock provider)',
      slug: DEMO_SLUG,
      description: 'Created by pnpm start: the in-repo mock provider on loopback, simulated answers.',
      ai_provider: 'openai',
      credentials: { api_key: DEMO_PROVIDER_KEY },
      options: { custom_host: customHost },
      workspaces: [{ id: workspace.id }],
      default_provider_slug: DEMO_SLUG,
      tags: { [DEMO_TAG.key]: DEMO_TAG.value },
    });
    created.push('integration and @demo provider');
  } else {
    throw new AdminApiError('GET', `/integrations/${DEMO_SLUG}`, found);
  }

  let provider = await demoProvider(admin);
  if (provider === undefined) {
    // The provider was deleted (or the integration's workspace entry removed): give it back.
    const workspace = await firstWorkspace(admin, created);
    await admin.expect('PUT', `/integrations/${DEMO_SLUG}/workspaces`, [200], {
      workspaces: [{ id: workspace.id, enabled: true }],
      create_default_provider: true,
      default_provider_slug: DEMO_SLUG,
    });
    provider = await demoProvider(admin);
    if (provider === undefined) throw new Error('the @demo provider was not created');
    created.push('@demo provider');
  }
  const workspace = await admin.expect('GET', `/workspaces/${provider.workspace_id}`, [200]);

  const keyFile = join(options.dataDir, DEMO_KEY_FILE);
  if (!(await keyStillWorks(admin, provider.workspace_id, keyFile))) {
    const key = await admin.expect('POST', '/api-keys/workspace/service', [201], {
      name: DEMO_KEY_NAME,
      description: 'Created by pnpm start for the demo provider; the key is in the data directory.',
      workspace_id: provider.workspace_id,
      scopes: DEMO_KEY_SCOPES,
    });
    writeFileSync(keyFile, `${key.body.key}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600);
    created.push(`workspace key (${DEMO_KEY_FILE})`);
  }
  return { workspaceId: workspace.body.id, workspaceName: workspace.body.name, keyFile, created };
}

/** The `@demo` provider made from the demo integration, if one exists. */
async function demoProvider(admin: AdminClient): Promise<{ id: string; workspace_id: string } | undefined> {
  const list = await admin.expect('GET', `/providers?integration_id=${DEMO_SLUG}&page_size=500`, [200]);
  const providers = list.body.data as Array<{ id: string; slug: string; workspace_id: string }>;
  return providers.find((p) => p.slug === DEMO_SLUG);
}

/** The organisation's first active workspace; one named `Default workspace` when it has none. */
async function firstWorkspace(admin: AdminClient, created: string[]): Promise<{ id: string }> {
  const list = await admin.expect('GET', '/workspaces?page_size=1', [200]);
  const first = list.body.data[0] as { id: string } | undefined;
  if (first) return first;
  const workspace = await admin.expect('POST', '/workspaces', [201], {
    name: 'Default workspace',
    description: 'Created by pnpm start for the demo provider.',
  });
  created.push('workspace "Default workspace"');
  return workspace.body;
}

/** Whether the key file holds an active demo key of the workspace (matched by name and last 4). */
async function keyStillWorks(admin: AdminClient, workspaceId: string, keyFile: string): Promise<boolean> {
  if (!existsSync(keyFile)) return false;
  const key = readFileSync(keyFile, 'utf8').trim();
  if (key === '') return false;
  const list = await admin.expect(
    'GET',
    `/api-keys?workspace_id=${workspaceId}&type=service&status=active&page_size=500`,
    [200],
  );
  const keys = list.body.data as Array<{ name: string; last4: string }>;
  return keys.some((k) => k.name === DEMO_KEY_NAME && k.last4 === key.slice(-4));
}

/** The banner's last lines: one curl to copy and paste, and the OpenAI SDK line. */
export function demoBanner(setup: DemoSetup, urls: { gateway: string; controlPlane: string }): string[] {
  const key = `$(cat ${shellQuote(setup.keyFile)})`;
  const body = JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Hello from the aigw quick start' }],
  });
  return [
    `demo: @${DEMO_SLUG} in workspace "${setup.workspaceName}" is the mock provider above (it echoes your message back), its workspace key is in ${setup.keyFile}.`,
    `  logs: curl -s -H "x-service-api-key: ${key}" ${urls.controlPlane}/logs`,
    'try it:',
    `  curl -s ${urls.gateway}/chat/completions -H "x-service-api-key: ${key}" -H 'x-service-provider: @${DEMO_SLUG}' -H 'content-type: application/json' -d '${body}'`,
    `  new OpenAI({ apiKey: 'unused', baseURL: '${urls.gateway}', defaultHeaders: { 'x-service-api-key': readFileSync(${JSON.stringify(setup.keyFile)}, 'utf8').trim(), 'x-service-provider': '@${DEMO_SLUG}' } })`,
  ];
}

/** A path as one shell word (single-quoted unless it is plainly safe). */
function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

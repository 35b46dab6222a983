// Integration-test harness: a control plane per test file on its own database and NATS namespace,
// bootstrapped with a known admin key, and a small JSON client for the admin API.
import { test as base } from '@aigw/testkit';
import { createApp } from '../src/app.js';
import { loadControlPlaneConfig } from '../src/config.js';
export const ADMIN_KEY = `aigw_test_admin_${'k'.repeat(32)}`;
/** The test master key (32 bytes, base64) sealing provider credentials. */
export const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
export function startControlPlane(fixtures, env = {}) {
    const namespace = fixtures.nats.prefix;
    const app = createApp(loadControlPlaneConfig({
        PORT: '0',
        GRPC_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        DATABASE_URL: fixtures.pg.url,
        NATS_URL: fixtures.nats.url,
        NATS_NAMESPACE: namespace,
        BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
        MASTER_KEY,
        OUTBOX_POLL_MS: '50',
        ...env,
    }));
    return { app, namespace };
}
export function apiClient(base, defaultKey) {
    return async function call(method, path, options = {}) {
        const headers = { ...options.headers };
        const key = options.key === undefined ? defaultKey : options.key;
        if (key !== null)
            headers['x-service-api-key'] = key;
        if (options.token)
            headers.authorization = `Bearer ${options.token}`;
        let body;
        if (options.raw !== undefined)
            body = options.raw;
        else if (options.body !== undefined)
            body = JSON.stringify(options.body);
        if (body !== undefined)
            headers['content-type'] = 'application/json';
        const response = await fetch(`${base}/v1${path}`, { method: method.toUpperCase(), headers, body });
        const text = await response.text();
        let parsed = text;
        try {
            parsed = text === '' ? undefined : JSON.parse(text);
        }
        catch {
            // not JSON: tests see the text
        }
        return { status: response.status, body: parsed, headers: response.headers };
    };
}
/** `test` with a file-scoped, bootstrapped control plane as `cp`. */
export const test = base.extend({
    cp: [
        async ({ pg, nats }, use) => {
            const { app, namespace } = startControlPlane({ pg, nats });
            await app.start();
            const base = `http://127.0.0.1:${app.ports.http}`;
            try {
                await use({ app, base, adminKey: ADMIN_KEY, namespace, call: apiClient(base, ADMIN_KEY) });
            }
            finally {
                await app.stop();
            }
        },
        { scope: 'file' },
    ],
});
//# sourceMappingURL=harness.js.map
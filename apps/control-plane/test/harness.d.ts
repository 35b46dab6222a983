import { type NatsFixture, type PgFixture } from '@aigw/testkit';
import { type ControlPlaneApp } from '../src/app.js';
export declare const ADMIN_KEY: string;
/** The test master key (32 bytes, base64) sealing provider credentials. */
export declare const MASTER_KEY: string;
export interface ApiResponse<T = any> {
    readonly status: number;
    readonly body: T;
    readonly headers: Headers;
}
export interface CallOptions {
    /** API key for x-service-api-key; defaults to the bootstrap admin key. null sends none. */
    readonly key?: string | null;
    readonly token?: string;
    readonly body?: unknown;
    /** Raw body text (sent as application/json) for malformed-input tests. */
    readonly raw?: string;
    readonly headers?: Record<string, string>;
}
export interface ControlPlaneFixture {
    readonly app: ControlPlaneApp;
    readonly base: string;
    readonly adminKey: string;
    /** The NATS namespace the app publishes under (streams `<ns>_AIGW_CHANGES`, `<ns>_AIGW_AUDIT`). */
    readonly namespace: string;
    call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
}
export declare function startControlPlane(fixtures: {
    pg: PgFixture;
    nats: NatsFixture;
}, env?: Record<string, string>): {
    app: ControlPlaneApp;
    namespace: string;
};
export declare function apiClient(base: string, defaultKey: string): <T = any>(method: string, path: string, options?: CallOptions) => Promise<ApiResponse<T>>;
/** `test` with a file-scoped, bootstrapped control plane as `cp`. */
export declare const test: import("vitest").TestAPI<{
    nats: NatsFixture;
    cp: ControlPlaneFixture;
    pg: PgFixture;
    redis: import("@aigw/testkit").RedisFixture;
}>;
//# sourceMappingURL=harness.d.ts.map
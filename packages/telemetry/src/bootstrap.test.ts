// Tracing off costs nothing: without OTEL_EXPORTER_OTLP_ENDPOINT the SDK and the instrumentations are
// never loaded, so nothing is patched. With it they are, and the drivers the apps import by name
// (ES modules, as in production: plain Node, not vitest's module runner) load patched. Each case runs
// in a fresh Node process.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

/** Starts telemetry from `env` in a child process and reports what it loaded. */
interface Report {
  started: boolean;
  loaded: string[];
  patched: Record<'grpcServer' | 'grpcClient' | 'pg' | 'ioredis', boolean>;
}

function bootstrap(env: Record<string, string>): Report {
  const script = `
    import { createRequire } from 'node:module';
    const { startTelemetryFromEnv } = await import(${JSON.stringify(entry)});
    const telemetry = await startTelemetryFromEnv('probe');
    const cache = Object.keys(createRequire(import.meta.url).cache);
    const loaded = ['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-http', '@opentelemetry/instrumentation-pg']
      .filter((name) => cache.some((path) => path.includes(name)));
    const grpc = await import('@grpc/grpc-js');
    const { default: pg } = await import('pg');
    const { Redis } = await import('ioredis');
    const patched = {
      grpcServer: Boolean(grpc.Server.prototype.register.__wrapped),
      grpcClient: Boolean(grpc.Client.prototype.makeServerStreamRequest.__wrapped),
      pg: Boolean(pg.Client.prototype.query.__wrapped),
      ioredis: Boolean(Redis.prototype.sendCommand.__wrapped),
    };
    await telemetry?.shutdown();
    process.stdout.write(JSON.stringify({ started: telemetry !== undefined, loaded, patched }));
  `;
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _ignored, ...inherited } = process.env;
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@aigw/source', '--input-type=module', '-e', script],
    {
      // This package's directory: the drivers resolve from its (dev) dependencies.
      cwd: fileURLToPath(new URL('../', import.meta.url)),
      env: { ...inherited, OTEL_TRACES_EXPORTER: 'none', ...env },
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`bootstrap failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Report;
}

describe('startTelemetryFromEnv', () => {
  it('loads nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset', () => {
    expect(bootstrap({})).toEqual({
      started: false,
      loaded: [],
      patched: { grpcServer: false, grpcClient: false, pg: false, ioredis: false },
    });
  });

  it('starts the SDK with its instrumentations when it is set', () => {
    expect(bootstrap({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual({
      started: true,
      loaded: [
        '@opentelemetry/sdk-node',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-pg',
      ],
      patched: { grpcServer: true, grpcClient: true, pg: true, ioredis: true },
    });
  });
});

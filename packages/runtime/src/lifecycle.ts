// The shape every app has (createApp(config) -> start/stop) and the thin main that runs it.
import { ConfigError } from './config.js';

export interface App {
  start(): Promise<void>;
  /** Graceful: stop accepting, drain in-flight work, flush, close connections. Idempotent. */
  stop(): Promise<void>;
}

export interface MainOptions<C> {
  readonly name: string;
  readonly loadConfig: () => C;
  readonly createApp: (config: C) => App;
  /** Hard deadline for a graceful stop before the process exits anyway. */
  readonly shutdownTimeoutMs: (config: C) => number;
}

/** Load settings (exit 1 listing every bad one), start, and stop gracefully on SIGTERM/SIGINT. */
export async function runMain<C>(options: MainOptions<C>): Promise<void> {
  let config: C;
  try {
    config = options.loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${options.name}: cannot start, ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = options.createApp(config);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      process.stderr.write(`${options.name}: second ${signal}, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    const deadline = setTimeout(() => {
      process.stderr.write(`${options.name}: graceful stop took too long, exiting\n`);
      process.exit(1);
    }, options.shutdownTimeoutMs(config));
    deadline.unref();
    app.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${options.name}: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    await app.start();
  } catch (err) {
    process.stderr.write(
      `${options.name}: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    await app.stop().catch(() => undefined);
    process.exit(1);
  }
}

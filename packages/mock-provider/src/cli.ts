#!/usr/bin/env node
// `aigw-mock-provider`: runs the mock provider standalone, prints its URL, stops on SIGTERM/SIGINT.
import { CLI_USAGE, parseCliArgs } from './cli-options.js';
import { createMockProvider } from './server.js';

async function main(): Promise<void> {
  const command = parseCliArgs(process.argv.slice(2));
  if (command.help) {
    process.stdout.write(`${CLI_USAGE}\n`);
    return;
  }
  const mock = await createMockProvider(command.options);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`aigw-mock-provider: ${signal}, closing\n`);
    mock.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`aigw-mock-provider: close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The URL is the readiness signal, so it goes out only once the signal handlers are in place.
  process.stdout.write(`${mock.url}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `aigw-mock-provider: ${err instanceof Error ? err.message : String(err)}\n${CLI_USAGE}\n`,
  );
  process.exit(2);
});

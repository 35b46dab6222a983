// Command-line flags of `aigw-mock-provider`, parsed into MockOptions.
import { parseArgs } from 'node:util';
import type { MockOptions } from './types.js';

export const CLI_USAGE = `Usage: aigw-mock-provider [options]

  --host <addr>                 interface to bind (default 127.0.0.1)
  --port <n>                    port to bind (default 0: any free port)
  --latency-ms <n>              delay before response headers
  --status <code>               answer every call with this status
  --fail-first <n>              the first n calls fail with --fail-status
  --fail-status <code>          status of fail-first failures (default 500)
  --retry-after <seconds>       retry-after / retry-after-ms on errors
  --chunk-delay-ms <n>          delay between stream chunks
  --stall-after-chunks <n>      stream n chunks, then stall
  --cut-after-chunks <n>        stream n chunks, then drop the connection
  --chunks <n>                  content chunks per stream
  --omit-usage <0|1>            1: OpenAI chat answers carry no usage (include_usage ignored)
  --api-key <key>               accepted key (repeatable; default: any key)
  --max-recorded <n>            recorded requests kept (default 10000, 0: none)
  --aws-access-key-id <id>      SigV4 credentials for Bedrock routes
  --aws-secret-access-key <s>
  --aws-session-token <t>
  --help                        print this help`;

const KNOB_FLAGS = {
  'latency-ms': 'latencyMs',
  status: 'status',
  'fail-first': 'failFirst',
  'fail-status': 'failStatus',
  'retry-after': 'retryAfter',
  'chunk-delay-ms': 'chunkDelayMs',
  'stall-after-chunks': 'stallAfterChunks',
  'cut-after-chunks': 'cutAfterChunks',
  chunks: 'chunks',
  'omit-usage': 'omitUsage',
} as const;

export type CliCommand = { help: true } | { help: false; options: MockOptions };

function toNumber(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n))
    throw new Error(`--${flag} expects a number, got '${value}'`);
  return n;
}

export function parseCliArgs(argv: readonly string[]): CliCommand {
  const string = { type: 'string' } as const;
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      host: string,
      port: string,
      'api-key': { type: 'string', multiple: true },
      'max-recorded': string,
      'aws-access-key-id': string,
      'aws-secret-access-key': string,
      'aws-session-token': string,
      help: { type: 'boolean' },
      ...Object.fromEntries(Object.keys(KNOB_FLAGS).map((flag) => [flag, string])),
    },
  });
  if (values.help) return { help: true };
  const options: MockOptions = {};
  const raw = values as Record<string, string | string[] | boolean | undefined>;
  if (typeof raw.host === 'string') options.host = raw.host;
  if (typeof raw.port === 'string') options.port = toNumber('port', raw.port);
  for (const [flag, knob] of Object.entries(KNOB_FLAGS)) {
    const value = raw[flag];
    if (typeof value === 'string') options[knob] = toNumber(flag, value);
  }
  if (Array.isArray(raw['api-key'])) options.apiKeys = raw['api-key'];
  if (typeof raw['max-recorded'] === 'string')
    options.maxRecorded = toNumber('max-recorded', raw['max-recorded']);
  const keyId = raw['aws-access-key-id'];
  const secret = raw['aws-secret-access-key'];
  if (typeof keyId === 'string' || typeof secret === 'string') {
    if (typeof keyId !== 'string' || typeof secret !== 'string') {
      throw new Error('--aws-access-key-id and --aws-secret-access-key go together');
    }
    const token = raw['aws-session-token'];
    options.aws = {
      accessKeyId: keyId,
      secretAccessKey: secret,
      ...(typeof token === 'string' ? { sessionToken: token } : {}),
    };
  }
  return { help: false, options };
}

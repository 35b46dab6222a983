// Runs the pinned buf CLI for gen and check: resolves directories from arguments and puts this
// package's node_modules/.bin first on PATH, so buf.gen.yaml's `local: protoc-gen-ts_proto` is the
// pinned ts-proto whatever the caller's PATH holds (generation must be reproducible).
import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Where generated code lives inside the package; must match `out` in buf.gen.yaml. */
export const GEN_DIR = 'src/gen';

const toolPackageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(toolPackageDir, 'node_modules', '.bin');

/**
 * `--package-dir` (default: this package), `--proto-dir` (default: `<package>/../../proto`) and
 * `--docs-file` (default: `<package>/../../docs/proto.md`, holding the generated reference section).
 */
export function parseDirs(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'package-dir': { type: 'string' },
      'proto-dir': { type: 'string' },
      'docs-file': { type: 'string' },
    },
    strict: true,
  });
  const packageDir = resolve(values['package-dir'] ?? toolPackageDir);
  const protoDir = resolve(values['proto-dir'] ?? join(packageDir, '..', '..', 'proto'));
  const docsFile = resolve(values['docs-file'] ?? join(packageDir, '..', '..', 'docs', 'proto.md'));
  return { packageDir, protoDir, docsFile };
}

function buf(args, cwd) {
  const result = spawnSync(join(binDir, 'buf'), args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}` },
  });
  if (result.error) throw result.error;
  return {
    ok: result.status === 0,
    stdout: result.stdout,
    output: `${result.stdout}${result.stderr}`.trim(),
  };
}

/** `buf lint` on the proto module; returns the findings, empty when clean. */
export function lint(protoDir) {
  const { ok, output } = buf(['lint'], protoDir);
  return ok ? '' : output || 'buf lint failed';
}

/**
 * Generates TypeScript from `protoDir` with `<packageDir>/buf.gen.yaml` into `<outDir>/src/gen`
 * (the template's `clean: true` empties that directory first). Throws with buf's output on failure.
 */
export function generate({ packageDir, protoDir, outDir }) {
  const { ok, output } = buf(
    ['generate', protoDir, '--template', join(packageDir, 'buf.gen.yaml'), '--output', outDir],
    packageDir,
  );
  if (!ok) throw new Error(`buf generate failed:\n${output}`);
}

/** The proto module as a FileDescriptorSet in protojson form, comments (source info) included. */
export function buildDescriptors(protoDir) {
  const { ok, stdout, output } = buf(['build', '-o', '-#format=json'], protoDir);
  if (!ok) throw new Error(`buf build failed:\n${output}`);
  return JSON.parse(stdout);
}

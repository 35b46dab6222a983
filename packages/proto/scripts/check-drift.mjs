// `pnpm check`: fails when the committed src/gen differs from a fresh generation, naming every
// modified, missing or unexpected file; also when the reference section of docs/proto.md is stale
// or the protos do not pass buf lint.
// Usage: node scripts/check-drift.mjs [--package-dir DIR] [--proto-dir DIR] [--docs-file FILE]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, sep } from 'node:path';
import { GEN_DIR, generate, lint, parseDirs } from './buf-runner.mjs';
import { renderDocsPage } from './reference-doc.mjs';

/** Every file below `root`, as sorted posix paths relative to it; empty when `root` is absent. */
function listFiles(root) {
  let entries;
  try {
    entries = readdirSync(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join(posix.sep))
    .sort();
}

/** Differences between the committed tree and the fresh one, as `<kind>: <path>` lines. */
function compareTrees(committedRoot, freshRoot) {
  const committed = new Set(listFiles(committedRoot));
  const fresh = new Set(listFiles(freshRoot));
  const problems = [];
  for (const file of [...new Set([...committed, ...fresh])].sort()) {
    const shown = posix.join(GEN_DIR, file);
    if (!committed.has(file)) problems.push(`missing:    ${shown} (generation produces it)`);
    else if (!fresh.has(file)) problems.push(`unexpected: ${shown} (generation does not produce it)`);
    else if (!readFileSync(join(committedRoot, file)).equals(readFileSync(join(freshRoot, file)))) {
      problems.push(`modified:   ${shown}`);
    }
  }
  return { problems, fileCount: fresh.size };
}

/**
 * A `modified:` line when the docs page differs from itself with a freshly rendered reference section
 * (a stale or hand-edited reference, or a page that is not biome-formatted).
 */
function checkDocs(docsFile, protoDir, repoRoot) {
  const shown = relative(repoRoot, docsFile).split(sep).join(posix.sep);
  let doc;
  try {
    doc = readFileSync(docsFile, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return [`missing:    ${shown} (holds the generated reference)`];
    throw error;
  }
  const expected = renderDocsPage(doc, protoDir, docsFile);
  return expected === doc ? [] : [`modified:   ${shown} (reference section)`];
}

const { packageDir, protoDir, docsFile } = parseDirs(process.argv.slice(2));
const findings = lint(protoDir);
if (findings) {
  process.stderr.write(`buf lint found problems in ${protoDir}:\n${findings}\n`);
  process.exit(1);
}
const outDir = mkdtempSync(join(tmpdir(), 'aigw-proto-check-'));
try {
  generate({ packageDir, protoDir, outDir });
  const { problems, fileCount } = compareTrees(join(packageDir, GEN_DIR), join(outDir, GEN_DIR));
  problems.push(...checkDocs(docsFile, protoDir, dirname(dirname(packageDir))));
  if (problems.length > 0) {
    process.stderr.write(
      `generated files differ from a fresh generation of ${protoDir}:\n  ${problems.join('\n  ')}\n` +
        'Generated files are never edited by hand: run `pnpm --filter @aigw/proto gen` and commit the result.\n',
    );
    process.exitCode = 1;
  } else {
    process.stdout.write(`${GEN_DIR} (${fileCount} files) and the docs reference match a fresh generation\n`);
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

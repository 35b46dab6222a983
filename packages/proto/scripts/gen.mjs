// `pnpm gen`: lints the protos, regenerates src/gen in place (stale files are removed), and
// rewrites the generated reference section of docs/proto.md.
// Usage: node scripts/gen.mjs [--package-dir DIR] [--proto-dir DIR] [--docs-file FILE]
import { readFileSync, writeFileSync } from 'node:fs';
import { GEN_DIR, generate, lint, parseDirs } from './buf-runner.mjs';
import { renderDocsPage } from './reference-doc.mjs';

const { packageDir, protoDir, docsFile } = parseDirs(process.argv.slice(2));
const findings = lint(protoDir);
if (findings) {
  process.stderr.write(`buf lint found problems in ${protoDir}:\n${findings}\n`);
  process.exit(1);
}
generate({ packageDir, protoDir, outDir: packageDir });
const doc = readFileSync(docsFile, 'utf8');
const updated = renderDocsPage(doc, protoDir, docsFile);
if (updated !== doc) writeFileSync(docsFile, updated);
process.stdout.write(`regenerated ${GEN_DIR} and the reference in ${docsFile} from ${protoDir}\n`);

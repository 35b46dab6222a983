// The committed generated code (and the reference in docs/proto.md) equals a fresh generation, and
// the drift check catches hand edits, deleted or stray files, and proto changes not regenerated.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const protoDir = join(packageDir, '..', '..', 'proto');
const docsFile = join(packageDir, '..', '..', 'docs', 'proto.md');

function runScript(script: 'check-drift' | 'gen', args: string[] = []) {
  const result = spawnSync(process.execPath, [join(packageDir, 'scripts', `${script}.mjs`), ...args], {
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Each check runs buf lint and buf generate (a Node plugin) in child processes: seconds, not ms.
describe('drift check on the real tree', { timeout: 60_000 }, () => {
  it('finds src/gen and the docs reference identical to a fresh generation', () => {
    const result = runScript('check-drift');
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/src\/gen \(\d+ files\) and the docs reference match a fresh generation/);
    expect(result.status).toBe(0);
  });
});

describe('drift check on a temporary copy', { timeout: 60_000 }, () => {
  let root: string;
  let copyPackage: string;
  let copyProto: string;
  let copyDocs: string;
  const check = () => runScript('check-drift', ['--package-dir', copyPackage, '--proto-dir', copyProto]);
  const generated = (file: string) => join(copyPackage, 'src', 'gen', 'aigw', 'v1', file);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'aigw-proto-drift-test-'));
    copyPackage = join(root, 'packages', 'proto');
    copyProto = join(root, 'proto');
    copyDocs = join(root, 'docs', 'proto.md');
    cpSync(join(packageDir, 'buf.gen.yaml'), join(copyPackage, 'buf.gen.yaml'));
    cpSync(join(packageDir, 'src', 'gen'), join(copyPackage, 'src', 'gen'), { recursive: true });
    cpSync(protoDir, copyProto, { recursive: true });
    cpSync(docsFile, copyDocs);
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('passes on an untouched copy', () => {
    expect(check().status).toBe(0);
  });

  it('fails and names a hand-edited file', () => {
    const file = generated('request_event.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace('traceId: string;', 'traceId: string; // edited'));
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('modified:   src/gen/aigw/v1/request_event.ts');
    expect(result.stderr).not.toContain('snapshot.ts');
  });

  it('fails and names a deleted file', () => {
    unlinkSync(generated('audit_event.ts'));
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('missing:    src/gen/aigw/v1/audit_event.ts');
  });

  it('fails and names a file that generation does not produce', () => {
    writeFileSync(generated('stale.ts'), 'export {};\n');
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('unexpected: src/gen/aigw/v1/stale.ts');
  });

  it('fails when a proto changed without regenerating, and gen repairs it', () => {
    const proto = join(copyProto, 'aigw', 'v1', 'audit_event.proto');
    const source = readFileSync(proto, 'utf8');
    writeFileSync(
      proto,
      source.replace(
        '  string trace_id = 17;\n',
        '  string trace_id = 17;\n  // Added.\n  string extra = 18;\n',
      ),
    );
    writeFileSync(generated('stale.ts'), 'export {};\n');
    const before = check();
    expect(before.status).toBe(1);
    expect(before.stderr).toContain('modified:   src/gen/aigw/v1/audit_event.ts');
    expect(before.stderr).toContain('modified:   docs/proto.md (reference section)');
    expect(before.stderr).toContain('unexpected: src/gen/aigw/v1/stale.ts');

    const gen = runScript('gen', ['--package-dir', copyPackage, '--proto-dir', copyProto]);
    expect(gen.status).toBe(0);
    expect(readFileSync(generated('audit_event.ts'), 'utf8')).toContain('extra: string;');
    expect(readFileSync(copyDocs, 'utf8')).toMatch(/\| `extra` +\| 18 +\| string +\| Added\. +\|/);
    expect(existsSync(generated('stale.ts'))).toBe(false);
    const after = check();
    expect(after.stderr).toBe('');
    expect(after.status).toBe(0);
  });

  it('fails when the reference section of the docs was edited by hand', () => {
    const doc = readFileSync(copyDocs, 'utf8');
    expect(doc).toContain('Who acted.');
    writeFileSync(copyDocs, doc.replace('Who acted.', 'Somebody.'));
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('modified:   docs/proto.md (reference section)');
    expect(result.stderr).not.toContain('src/gen');
  });

  it('fails when the protos do not pass buf lint', () => {
    appendFileSync(
      join(copyProto, 'aigw', 'v1', 'common.proto'),
      '\nmessage Undocumented {\n  string x = 1;\n}\n',
    );
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('buf lint found problems');
    expect(result.stderr).toContain('Undocumented');
  });
});

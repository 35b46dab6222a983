// The images cannot be built on machines without a Docker engine; this lints the Dockerfiles with
// dockerfile-utils (the VS Code Docker validator) and checks the properties the images promise.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ValidationSeverity, validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { appNodeFlags } from './apps.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const deploy = `${root}deploy/`;
const APPS = [
  { app: 'gateway', ports: ['8787'] },
  { app: 'control-plane', ports: ['8788', '50051'] },
  { app: 'logger', ports: ['8789', '50052'] },
] as const;

/** Instructions of the last stage (the image that ships), without comments or continuations. */
function finalStage(content: string): string[] {
  const instructions = content
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const lastFrom = instructions.map((line) => line.startsWith('FROM ')).lastIndexOf(true);
  return instructions.slice(lastFrom);
}

describe.each(APPS)('deploy/$app.Dockerfile', ({ app, ports }) => {
  const content = readFileSync(`${deploy}${app}.Dockerfile`, 'utf8');

  it('has no validator errors or warnings', () => {
    const problems = validate(content, {
      instructionHealthcheckMultiple: ValidationSeverity.ERROR,
      instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
      instructionCmdMultiple: ValidationSeverity.ERROR,
      instructionEntrypointMultiple: ValidationSeverity.ERROR,
      emptyContinuationLine: ValidationSeverity.ERROR,
    });
    expect(problems.map((p) => `${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it('builds in one stage and ships a Node 24 image with production dependencies only', () => {
    const froms = content.split('\n').filter((line) => line.startsWith('FROM '));
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:24[-.\w]* AS \w+$/);
    expect(content).toContain(`--filter=@aigw/${app} deploy --prod`);
    expect(content).toContain('--frozen-lockfile');
  });

  it('runs as a non-root user, with a health check, its ports and a graceful stop signal', () => {
    const stage = finalStage(content);
    const user = stage.filter((line) => line.startsWith('USER '));
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^USER (root|0)(:|$)/);
    expect(stage.findIndex((l) => l.startsWith('USER '))).toBeLessThan(
      stage.findIndex((l) => l.startsWith('CMD ')),
    );
    expect(stage.some((line) => line.startsWith('HEALTHCHECK ') && line.includes('/healthz'))).toBe(true);
    expect(stage).toContain(`EXPOSE ${ports.join(' ')}`);
    expect(stage).toContain('STOPSIGNAL SIGTERM');
    // The app's own Node flags, as `pnpm start` and the stack run it (aigw.nodeFlags).
    const command = ['node', ...appNodeFlags(root, app), 'dist/main.js'];
    expect(stage).toContain(`CMD [${command.map((part) => `"${part}"`).join(', ')}]`);
    const manifest = JSON.parse(readFileSync(`${root}apps/${app}/package.json`, 'utf8'));
    expect(manifest.scripts.start).toBe(command.join(' '));
    expect(stage.filter((line) => line.startsWith('COPY ') && line.includes('--chown'))).toEqual([]);
  });
});

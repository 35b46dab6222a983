// docs/providers.md is written from the code's tables: this keeps the two from drifting apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLOUD_HEADERS } from './cloud-headers.js';
import { PROVIDER_ALIASES, PROVIDERS } from './registry.js';

/**
 * Table rows with the formatter's column padding removed (`|  a   | b |` -> `| a | b |`, and
 * `| --- | :-- |` -> `|---|---|`), so the comparison is about content, not alignment.
 */
function normaliseTables(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => {
      if (!line.startsWith('|')) return line;
      const cells = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim());
      if (cells.every((cell) => /^:?-+:?$/.test(cell))) return `|${cells.map(() => '---').join('|')}|`;
      return `| ${cells.join(' | ')} |`;
    })
    .join('\n');
}

const DOC = normaliseTables(readFileSync(new URL('../../../../docs/providers.md', import.meta.url), 'utf8'));

describe('docs/providers.md', () => {
  it('has the cloud header table exactly as CLOUD_HEADERS says', () => {
    const table = [
      '| Header | Provider | Required | Meaning |',
      '|---|---|---|---|',
      ...CLOUD_HEADERS.map((h) => `| \`${h.name}\` | \`${h.provider}\` | ${h.required} | ${h.meaning} |`),
    ].join('\n');
    expect(DOC).toContain(table);
  });

  it('has a row for every provider with its base URL and aliases', () => {
    for (const provider of PROVIDERS) {
      const row = DOC.split('\n').find((line) => line.startsWith(`| \`${provider.id}\` |`));
      expect(row, provider.id).toBeDefined();
      if (provider.baseUrl !== '') expect(row, provider.id).toContain(`\`${provider.baseUrl}\``);
      for (const [alias, id] of Object.entries(PROVIDER_ALIASES)) {
        if (id === provider.id) expect(row, provider.id).toContain(`\`${alias}\``);
      }
    }
  });
});

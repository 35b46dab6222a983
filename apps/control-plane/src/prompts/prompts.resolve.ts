// Which version a reference means: `slug` or id (the published version), `slug@<label>` (the version
// the label points to), `slug@<n>` (version n). The gateway reads references the same way.
import { notFound } from '../api-errors.js';
import type { Labels } from './prompts.entity.js';

export interface PromptRef {
  readonly prompt: string;
  readonly label: string | undefined;
  readonly version: number | undefined;
}

export function parsePromptRef(ref: string): PromptRef {
  const at = ref.indexOf('@');
  if (at < 0) return { prompt: ref, label: undefined, version: undefined };
  const selector = ref.slice(at + 1);
  const prompt = ref.slice(0, at);
  return /^[0-9]+$/.test(selector)
    ? { prompt, label: undefined, version: Number(selector) }
    : { prompt, label: selector, version: undefined };
}

/** The version number a reference selects (404 when the label is not set on the prompt). */
export function selectedVersion(ref: PromptRef, defaultVersion: number, labels: Labels): number {
  if (ref.version !== undefined) return ref.version;
  if (ref.label === undefined) return defaultVersion;
  const version = labels[ref.label];
  if (version === undefined) throw notFound(`label "${ref.label}" on this prompt`);
  return version;
}

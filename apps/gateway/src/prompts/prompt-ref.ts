// `/v1/prompts/{ref}/completions`: which requests are prompt completions, and what `{ref}` names
// (an id, a slug, `slug@<label>` or `slug@<version>`), read exactly as the control plane reads it.

const PATH = /^\/prompts\/([^/?]+)\/completions$/;

export interface PromptRef {
  /** The id or slug. */
  readonly prompt: string;
  readonly label: string | undefined;
  readonly version: number | undefined;
}

/** The reference of a prompt completion (POST only); undefined for every other request. */
export function promptReference(method: string | undefined, path: string): string | undefined {
  // Every POST passes here: the prefix test keeps the regular expression off the common path.
  if (method !== 'POST' || !path.startsWith('/prompts/')) return undefined;
  const match = PATH.exec(path);
  if (!match?.[1]) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

export function parsePromptRef(ref: string): PromptRef {
  const at = ref.indexOf('@');
  if (at < 0) return { prompt: ref, label: undefined, version: undefined };
  const selector = ref.slice(at + 1);
  const prompt = ref.slice(0, at);
  return /^[0-9]{1,9}$/.test(selector)
    ? { prompt, label: undefined, version: Number(selector) }
    : { prompt, label: selector, version: undefined };
}

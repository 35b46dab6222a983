// Where an error about a config belongs on the page: the form field the API's `param` names, and for a
// path inside the config object (`config.targets[1].provider`, as @aigw/config-schema writes it) the
// line of the editor's text it points to. Also the editor's own check that its text is JSON at all
// (the one thing the console must know before it can send anything).
import { findNodeAtLocation, type ParseError, parseTree, type Segment } from 'jsonc-parser';

export type ConfigField = 'config' | 'name' | 'slug' | 'workspace_id' | 'status';

/** The form field a `param` names, or undefined when it names none (shown in the page's banner). */
export function fieldOfParam(param: string | null | undefined): ConfigField | undefined {
  if (!param) return undefined;
  if (configPathOf(param) !== undefined) return 'config';
  switch (param) {
    case 'body.name':
      return 'name';
    case 'body.slug':
      return 'slug';
    case 'body.workspace_id':
    case 'query.workspace_id':
      return 'workspace_id';
    case 'body.status':
      return 'status';
    default:
      return undefined;
  }
}

/** `config.a[1]["x-y"]` or `body.config.a` -> the remainder after the root (`.a[1]["x-y"]`). */
function configPathOf(param: string): string | undefined {
  for (const root of ['body.config', 'config']) {
    if (param === root) return '';
    if (param.startsWith(`${root}.`) || param.startsWith(`${root}[`)) return param.slice(root.length);
  }
  return undefined;
}

const STEP = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** The segments of a config path param below the config object's root; undefined if it is not one. */
export function configPathSegments(param: string): Segment[] | undefined {
  let rest = configPathOf(param);
  if (rest === undefined) return undefined;
  const segments: Segment[] = [];
  while (rest !== '') {
    const step = STEP.exec(rest);
    if (!step) return segments; // an unexpected form: the deepest part understood
    if (step[1] !== undefined) segments.push(step[1]);
    else if (step[2] !== undefined) segments.push(Number(step[2]));
    else segments.push(JSON.parse(step[3] as string) as string);
    rest = rest.slice(step[0].length);
  }
  return segments;
}

export interface TextLocation {
  /** 1-based line number in the text. */
  readonly line: number;
  /** That line, as typed. */
  readonly text: string;
  /** False when the path's last part is missing from the text (a required field left out): the line is its parent's. */
  readonly exact: boolean;
}

export function lineAt(text: string, offset: number): { line: number; text: string } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, text: text.split('\n')[line - 1] ?? '' };
}

/** The line of `text` (the editor's JSON) that the path names, or its nearest existing ancestor's. */
export function locatePath(text: string, segments: readonly Segment[]): TextLocation | undefined {
  const root = parseTree(text);
  if (!root) return undefined;
  for (let depth = segments.length; depth >= 0; depth--) {
    const node = findNodeAtLocation(root, segments.slice(0, depth));
    if (!node) continue;
    // A property's value is reported at its key's line (`"provider": "@x"`).
    const offset = node.parent?.type === 'property' ? node.parent.offset : node.offset;
    return { ...lineAt(text, offset), exact: depth === segments.length };
  }
  return undefined;
}

export type ParsedText =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string; readonly line: number; readonly text: string };

/** The editor's text as JSON, or where it stops being JSON (before anything is sent). */
export function parseEditorText(text: string): ParsedText {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const errors: ParseError[] = [];
    parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
    const at = lineAt(text, errors[0]?.offset ?? 0);
    return { ok: false, message: err instanceof Error ? err.message : String(err), ...at };
  }
}

/** A config object as the editor shows it. */
export function configText(config: unknown): string {
  return JSON.stringify(config, null, 2);
}

// Renders the field reference of docs/proto.md from the proto comments (buf's descriptor set with
// source info), splices it between the markers and formats the page with the repo's pinned biome
// (which formats markdown in `pnpm lint`), so the reference cannot drift from the protos.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDescriptors } from './buf-runner.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const BEGIN_MARKER =
  '<!-- BEGIN GENERATED REFERENCE: edit the .proto comments, then run `pnpm proto:gen` -->';
const END_MARKER = '<!-- END GENERATED REFERENCE -->';

// FileDescriptorProto / DescriptorProto field numbers used in SourceCodeInfo paths.
const PATH = { message: 4, enum: 5, service: 6, field: 2, nested: 3, nestedEnum: 4, value: 2, method: 2 };
const SYNTAX_PATH = '12';

function commentsByPath(file) {
  const map = new Map();
  for (const location of file.sourceCodeInfo?.location ?? []) {
    if (location.path) map.set(location.path.join('.'), location);
  }
  return map;
}

// Angle brackets outside code spans would be read as HTML tags by markdown renderers.
const escapeHtml = (text) =>
  text
    .split('`')
    .map((part, i) => (i % 2 === 0 ? part.replaceAll('<', '&lt;').replaceAll('>', '&gt;') : part))
    .join('`');
const oneLine = (text) => escapeHtml((text ?? '').replace(/\s+/g, ' ').trim()).replaceAll('|', '\\|');
const paragraph = (text) =>
  escapeHtml(
    (text ?? '')
      .split('\n')
      .map((line) => line.replace(/^ /, ''))
      .join('\n')
      .trim(),
  );
const fileComment = (location) => location?.leadingComments ?? location?.leadingDetachedComments?.[0];
const shortName = (typeName) => typeName.replace(/^\.aigw\.v1\./, '');
const anchor = (name) => `#${name.toLowerCase().replaceAll('.', '')}`;

function scalarName(type) {
  return type.replace(/^TYPE_/, '').toLowerCase();
}

function typeOf(field, mapEntries) {
  if (field.typeName) {
    const entry = mapEntries.get(field.typeName);
    if (entry) {
      const [key, value] = entry.field;
      return `map&lt;${typeOf(key, mapEntries)}, ${typeOf(value, mapEntries)}&gt;`;
    }
    const name = shortName(field.typeName);
    return `[${name}](${anchor(name)})`;
  }
  return scalarName(field.type);
}

function label(field, mapEntries) {
  if (field.label === 'LABEL_REPEATED' && !mapEntries.has(field.typeName)) return 'repeated ';
  return field.proto3Optional ? 'optional ' : '';
}

function collectMapEntries(files) {
  const entries = new Map();
  const visit = (prefix, message) => {
    const name = `${prefix}.${message.name}`;
    if (message.options?.mapEntry) entries.set(name, message);
    for (const nested of message.nestedType ?? []) visit(name, nested);
  };
  for (const file of files) for (const message of file.messageType ?? []) visit(`.${file.package}`, message);
  return entries;
}

function renderEnum(lines, qualifiedName, enumType, path, comments) {
  lines.push(`### ${qualifiedName}`, '', paragraph(comments.get(path)?.leadingComments), '');
  lines.push('| Value | Number | Description |', '|---|---|---|');
  enumType.value.forEach((value, i) => {
    const text = oneLine(comments.get(`${path}.${PATH.value}.${i}`)?.leadingComments);
    lines.push(`| \`${value.name}\` | ${value.number ?? 0} | ${text} |`);
  });
  lines.push('');
}

function renderMessage(lines, qualifiedName, message, path, comments, mapEntries) {
  if (message.options?.mapEntry) return;
  lines.push(`### ${qualifiedName}`, '', paragraph(comments.get(path)?.leadingComments), '');
  if ((message.field ?? []).length > 0) {
    lines.push('| Field | Number | Type | Description |', '|---|---|---|---|');
    message.field.forEach((field, i) => {
      const oneof =
        field.oneofIndex !== undefined && !field.proto3Optional
          ? `(oneof \`${message.oneofDecl[field.oneofIndex].name}\`) `
          : '';
      const text = oneLine(comments.get(`${path}.${PATH.field}.${i}`)?.leadingComments);
      lines.push(
        `| \`${field.name}\` | ${field.number} | ${label(field, mapEntries)}${typeOf(field, mapEntries)} | ${oneof}${text} |`,
      );
    });
  } else {
    lines.push('No fields.');
  }
  lines.push('');
  (message.nestedType ?? []).forEach((nested, i) => {
    renderMessage(
      lines,
      `${qualifiedName}.${nested.name}`,
      nested,
      `${path}.${PATH.nested}.${i}`,
      comments,
      mapEntries,
    );
  });
  (message.enumType ?? []).forEach((nested, i) => {
    renderEnum(lines, `${qualifiedName}.${nested.name}`, nested, `${path}.${PATH.nestedEnum}.${i}`, comments);
  });
}

function renderService(lines, service, path, comments) {
  lines.push(`### ${service.name}`, '', paragraph(comments.get(path)?.leadingComments), '');
  lines.push('| RPC | Request | Response | Description |', '|---|---|---|---|');
  service.method.forEach((method, i) => {
    const input = shortName(method.inputType);
    const output = shortName(method.outputType);
    const stream = method.serverStreaming ? 'stream ' : '';
    const text = oneLine(comments.get(`${path}.${PATH.method}.${i}`)?.leadingComments);
    lines.push(
      `| \`${method.name}\` | [${input}](${anchor(input)}) | ${stream}[${output}](${anchor(output)}) | ${text} |`,
    );
  });
  lines.push('');
}

/** The reference section (markers excluded) for the protos in `protoDir`. */
function renderReference(protoDir) {
  const files = buildDescriptors(protoDir).file.sort((a, b) => (a.name < b.name ? -1 : 1));
  const mapEntries = collectMapEntries(files);
  const lines = [];
  for (const file of files) {
    const comments = commentsByPath(file);
    lines.push(`## \`${file.name}\``, '', paragraph(fileComment(comments.get(SYNTAX_PATH))), '');
    (file.service ?? []).forEach((service, i) => {
      renderService(lines, service, `${PATH.service}.${i}`, comments);
    });
    const declarations = [
      ...(file.messageType ?? []).map((m, i) => ({ kind: 'message', node: m, path: `${PATH.message}.${i}` })),
      ...(file.enumType ?? []).map((e, i) => ({ kind: 'enum', node: e, path: `${PATH.enum}.${i}` })),
    ].sort((a, b) => comments.get(a.path).span[0] - comments.get(b.path).span[0]);
    for (const { kind, node, path } of declarations) {
      if (kind === 'enum') renderEnum(lines, node.name, node, path, comments);
      else renderMessage(lines, node.name, node, path, comments, mapEntries);
    }
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

function spliceReference(doc, reference, docsFile) {
  const begin = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (begin === -1 || end === -1 || end < begin) {
    throw new Error(`${docsFile} must contain the lines\n${BEGIN_MARKER}\n${END_MARKER}`);
  }
  return `${doc.slice(0, begin + BEGIN_MARKER.length)}\n\n${reference}\n${doc.slice(end)}`;
}

/** Formats markdown as `biome check` expects it, using the repository's biome and biome.json. */
function formatMarkdown(text) {
  const result = spawnSync(
    join(repoRoot, 'node_modules', '.bin', 'biome'),
    ['format', '--stdin-file-path=docs/proto.md'],
    { cwd: repoRoot, input: text, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`biome format failed:\n${result.stderr}`);
  return result.stdout;
}

/** The docs page as `gen` writes it: `doc` with a fresh reference section, biome-formatted. */
export function renderDocsPage(doc, protoDir, docsFile) {
  return formatMarkdown(spliceReference(doc, renderReference(protoDir), docsFile));
}

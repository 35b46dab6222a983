// The secret mappings editor's pure logic, shared by the integration and virtual key dialogs
// (docs/admin-api/secret-references.md): which credential fields a reference may fill, the rows the
// form edits, their check before sending, and whether `secret_mappings` is sent at all (only when
// the rows differ from the stored mappings: on PUT a list replaces them, `[]` stops mapping).
// The fields a reference may fill (MAPPABLE_FIELDS) come generated from the control plane's list.
import { MAPPABLE_FIELDS, type MappableField } from '../api/catalogue.js';

/** A credential field (integrations-form.ts's CredentialField, which this module does not import). */
interface Named {
  readonly name: string;
}

export function isMappable(name: string): name is MappableField {
  return (MAPPABLE_FIELDS as readonly string[]).includes(name);
}

/** The fields of a credential shape a reference may fill, in the shape's order. */
export function mappableFields<F extends Named>(fields: readonly F[]): F[] {
  return fields.filter((f) => isMappable(f.name));
}

/** One mapping as the API returns it (`secret_reference_id` is the reference's id). */
export interface StoredMapping {
  readonly field: string;
  readonly secret_reference_id: string;
  readonly key: string | null;
}

/** One row of the editor: `reference` is an id (picked) or an id or slug (typed). */
export interface MappingRow {
  readonly field: string;
  readonly reference: string;
  /** The key inside the secret; empty: the secret's only value. */
  readonly key: string;
}

export function mappingRows(stored: readonly StoredMapping[]): MappingRow[] {
  return stored.map((m) => ({ field: m.field, reference: m.secret_reference_id, key: m.key ?? '' }));
}

/** A new row for the first field of `fields` not mapped yet; undefined when all are. */
export function newMappingRow(rows: readonly MappingRow[], fields: readonly Named[]): MappingRow | undefined {
  const free = fields.find((f) => !rows.some((r) => r.field === f.name));
  return free ? { field: free.name, reference: '', key: '' } : undefined;
}

/** The rows whose field is one of `fields` (the others belong to a credential shape left behind). */
export function rowsFor(rows: readonly MappingRow[], fields: readonly Named[]): MappingRow[] {
  return rows.filter((r) => fields.some((f) => f.name === r.field));
}

/** The field names the rows fill, which the credential inputs then leave alone. */
export function mappedFieldNames(rows: readonly MappingRow[]): Set<string> {
  return new Set(rows.map((r) => r.field));
}

/** What is wrong with the rows before anything is sent (the API would refuse it), or undefined. */
export function mappingProblem(rows: readonly MappingRow[]): string | undefined {
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.reference.trim() === '') return `Secret mappings: choose the secret reference for ${row.field}.`;
    if (seen.has(row.field)) return `Secret mappings: ${row.field} is mapped twice.`;
    seen.add(row.field);
  }
  return undefined;
}

export interface MappingEntry {
  field: string;
  secret_reference_id: string;
  key?: string;
}

/** The `secret_mappings` entries of the rows (an empty key is left out: the secret's only value). */
export function mappingsBody(rows: readonly MappingRow[]): MappingEntry[] {
  return rows.map((r) => ({
    field: r.field,
    secret_reference_id: r.reference.trim(),
    ...(r.key.trim() ? { key: r.key.trim() } : {}),
  }));
}

/** The entries to send on PUT: undefined when the rows say what is stored already. */
export function changedMappings(
  stored: readonly StoredMapping[],
  rows: readonly MappingRow[],
): MappingEntry[] | undefined {
  const next = mappingsBody(rows);
  const before = mappingsBody(mappingRows(stored));
  const key = (m: MappingEntry) => `${m.field}\n${m.secret_reference_id.toLowerCase()}\n${m.key ?? ''}`;
  const same =
    next.length === before.length &&
    [...next.map(key)].sort().join('\n\n') === [...before.map(key)].sort().join('\n\n');
  return same ? undefined : next;
}

/** A secret reference as listed by GET /secret-references. */
export interface ReferenceLike {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
}

/** How a row's reference reads: the listed reference's name and slug, else what was typed or stored. */
export function referenceLabel(reference: string, listed: readonly ReferenceLike[] | undefined): string {
  const found = listed?.find((r) => r.id === reference || r.slug === reference);
  return found ? `${found.name} (${found.slug})` : reference;
}

// The virtual key edit dialog's pure logic (PUT /virtual-keys/{id}, docs/admin-api/integrations.md
// "Virtual keys"): the form from the record, the request from the form, and the rule that a key made
// from an integration has no credentials of its own (the API answers 409 AB07 for its key,
// credentials and mappings), so the dialog shows those read-only instead of letting the user hit it.
import type { AiProvider } from '../api/catalogue.js';
import { type CredentialField, credentialShapes, inferShape } from './integrations-form.js';
import {
  changedMappings,
  type MappingRow,
  mappableFields,
  mappedFieldNames,
  mappingRows,
  type StoredMapping,
} from './secret-mappings-form.js';

export interface VirtualKeyLike {
  readonly name: string;
  readonly note: string;
  readonly status: string;
  readonly provider: AiProvider;
  readonly integration_id: string | null;
  /** Masked, as the API returns them. */
  readonly credentials: Readonly<Record<string, unknown>> | null;
  readonly secret_mappings: readonly StoredMapping[];
}

export interface VirtualKeyForm {
  readonly name: string;
  readonly note: string;
  readonly status: 'active' | 'disabled';
  /** A new key (the api_key); empty keeps the stored one. Never filled from the API. */
  readonly key: string;
  readonly mappings: readonly MappingRow[];
}

export function virtualKeyEditForm(vk: VirtualKeyLike): VirtualKeyForm {
  return {
    name: vk.name,
    note: vk.note,
    status: vk.status === 'disabled' ? 'disabled' : 'active',
    key: '',
    mappings: mappingRows(vk.secret_mappings),
  };
}

/** Why the key's credentials and mappings cannot be edited here, or undefined when they can. */
export function credentialsReadOnlyReason(vk: Pick<VirtualKeyLike, 'integration_id'>): string | undefined {
  return vk.integration_id === null
    ? undefined
    : "Made from an integration: it uses the integration's credentials and has none of its own. Change the key or secret mappings on the integration (Integrations page).";
}

/** The fields a reference may fill for this key: the mappable ones of its credentials' shape. */
export function virtualKeyMappableFields(vk: VirtualKeyLike): CredentialField[] {
  const shape = credentialShapes(vk.provider)[
    inferShape(vk.provider, [...Object.keys(vk.credentials ?? {}), ...vk.secret_mappings.map((m) => m.field)])
  ];
  return mappableFields(shape?.fields ?? []);
}

/** True when the key's api_key comes from a reference (the key input then says so and is not sent). */
export function keyIsMapped(form: Pick<VirtualKeyForm, 'mappings'>): boolean {
  return mappedFieldNames(form.mappings).has('api_key');
}

/**
 * PUT /virtual-keys/{id} body: what changed. The key only when typed and not mapped; the mappings
 * only when the rows differ from the stored ones (`[]` stops mapping and keeps the last values);
 * neither for a key made from an integration.
 */
export function updateVirtualKeyBody(vk: VirtualKeyLike, form: VirtualKeyForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (form.name !== vk.name) body.name = form.name;
  if (form.note !== vk.note) body.note = form.note;
  if ((form.status === 'disabled') !== (vk.status === 'disabled')) body.status = form.status;
  if (credentialsReadOnlyReason(vk) !== undefined) return body;
  if (form.key !== '' && !keyIsMapped(form)) body.key = form.key;
  const mappings = changedMappings(vk.secret_mappings, form.mappings);
  if (mappings) body.secret_mappings = mappings;
  return body;
}

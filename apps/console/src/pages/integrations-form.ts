// The integrations page's pure logic: the credential shapes and options each provider type takes
// (docs/admin-api/integrations.md), and the create / update requests from the form. Credentials
// are write-only: the form starts empty, and an update sends them only when some were typed. Fields
// filled from secret references (secret-mappings-form.ts) are never typed. The provider types
// themselves are generated from the control plane's list (api/catalogue.ts).

import type { AiProvider } from '../api/catalogue.js';
import {
  changedMappings,
  type MappingRow,
  mappableFields,
  mappedFieldNames,
  mappingRows,
  mappingsBody,
  rowsFor,
  type StoredMapping,
} from './secret-mappings-form.js';

export interface CredentialField {
  readonly name: string;
  readonly label: string;
  readonly optional?: boolean;
}

export interface CredentialShape {
  readonly label: string;
  readonly fields: readonly CredentialField[];
}

const API_KEY: CredentialShape = { label: 'API key', fields: [{ name: 'api_key', label: 'API key' }] };

/** The credential shapes a type accepts, the first being the usual one. */
export function credentialShapes(type: AiProvider): readonly CredentialShape[] {
  switch (type) {
    case 'azure-openai':
      return [
        API_KEY,
        {
          label: 'Entra ID application',
          fields: [
            { name: 'client_id', label: 'Client id' },
            { name: 'client_secret', label: 'Client secret' },
            { name: 'tenant_id', label: 'Tenant id' },
          ],
        },
      ];
    case 'bedrock':
      return [
        {
          label: 'AWS access keys',
          fields: [
            { name: 'aws_access_key_id', label: 'AWS access key id' },
            { name: 'aws_secret_access_key', label: 'AWS secret access key' },
            { name: 'aws_session_token', label: 'AWS session token', optional: true },
          ],
        },
        { label: 'Bedrock API key', fields: [{ name: 'api_key', label: 'API key' }] },
      ];
    case 'vertex-ai':
      return [
        {
          label: 'Service account',
          fields: [{ name: 'service_account_json', label: 'Service account key file (JSON text)' }],
        },
        API_KEY,
      ];
    case 'ollama':
    case 'openai-compatible':
      return [
        { label: 'API key (optional)', fields: [{ name: 'api_key', label: 'API key', optional: true }] },
      ];
    default:
      return [API_KEY];
  }
}

/**
 * The shape stored credentials (or mappings) are of: the first whose required fields include one of
 * the names given; 0 (the usual shape) when none does.
 */
export function inferShape(type: AiProvider, names: readonly string[]): number {
  const index = credentialShapes(type).findIndex((shape) =>
    shape.fields.some((f) => !f.optional && names.includes(f.name)),
  );
  return Math.max(index, 0);
}

/** The chosen credential shape of the form. */
export function chosenShape(form: Pick<IntegrationForm, 'type' | 'shape'>): CredentialShape {
  const shapes = credentialShapes(form.type);
  return shapes[form.shape] ?? shapes[0] ?? API_KEY;
}

/** The mapping rows of the chosen shape (rows of a shape left behind are not sent). */
export function shapeMappings(form: IntegrationForm): MappingRow[] {
  return rowsFor(form.mappings, mappableFields(chosenShape(form).fields));
}

export interface OptionField {
  readonly name: string;
  readonly label: string;
  readonly required?: boolean;
  readonly placeholder?: string;
}

/** The options a type accepts (the API refuses the others). */
export function optionFields(type: AiProvider): readonly OptionField[] {
  const customHost: OptionField = {
    name: 'custom_host',
    label: 'Custom host (base URL)',
    required: type === 'openai-compatible',
    placeholder: 'https://llm-proxy.example.com/v1',
  };
  switch (type) {
    case 'azure-openai':
      return [
        { name: 'resource_name', label: 'Resource name', placeholder: 'acme-openai' },
        { name: 'api_version', label: 'API version', placeholder: '2024-10-21' },
        customHost,
      ];
    case 'bedrock':
      return [{ name: 'region', label: 'Region', required: true, placeholder: 'eu-west-1' }, customHost];
    case 'vertex-ai':
      return [
        { name: 'project_id', label: 'Project id' },
        { name: 'region', label: 'Region', placeholder: 'europe-west4' },
        customHost,
      ];
    default:
      return [customHost];
  }
}

export interface IntegrationForm {
  readonly type: AiProvider;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly shape: number;
  /** Typed credential values by field name; never filled from the API. */
  readonly credentials: Readonly<Record<string, string>>;
  /** Credential fields read from secret references instead. */
  readonly mappings: readonly MappingRow[];
  readonly options: Readonly<Record<string, string>>;
  readonly allowAll: boolean;
  /** Workspace ids given access. */
  readonly workspaces: readonly string[];
  readonly createDefaultProvider: boolean;
  readonly defaultProviderSlug: string;
  /** One model per line or comma-separated; empty: every model. */
  readonly allowedModels: string;
  readonly status: 'active' | 'disabled';
}

export function emptyIntegrationForm(): IntegrationForm {
  return {
    type: 'openai',
    name: '',
    slug: '',
    description: '',
    shape: 0,
    credentials: {},
    mappings: [],
    options: {},
    allowAll: false,
    workspaces: [],
    createDefaultProvider: true,
    defaultProviderSlug: '',
    allowedModels: '',
    status: 'active',
  };
}

export function parseModels(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((m) => m.trim())
    .filter((m) => m !== '');
}

/** The typed credentials of the chosen shape, or undefined when none was typed; mapped fields are left out. */
export function credentialsBody(form: IntegrationForm): Record<string, string> | undefined {
  const mapped = mappedFieldNames(shapeMappings(form));
  const out: Record<string, string> = {};
  for (const field of chosenShape(form).fields) {
    const value = mapped.has(field.name) ? '' : (form.credentials[field.name] ?? '');
    if (value !== '') out[field.name] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function optionsBody(form: IntegrationForm): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of optionFields(form.type)) {
    const value = (form.options[field.name] ?? '').trim();
    if (value !== '') out[field.name] = value;
  }
  return out;
}

export function createBody(form: IntegrationForm): Record<string, unknown> {
  const credentials = credentialsBody(form);
  const options = optionsBody(form);
  const models = parseModels(form.allowedModels);
  const mappings = mappingsBody(shapeMappings(form));
  return {
    name: form.name,
    ai_provider: form.type,
    ...(form.slug.trim() ? { slug: form.slug.trim() } : {}),
    ...(form.description.trim() ? { description: form.description } : {}),
    ...(credentials ? { credentials } : {}),
    ...(mappings.length ? { secret_mappings: mappings } : {}),
    ...(Object.keys(options).length ? { options } : {}),
    allow_all_workspaces: form.allowAll,
    workspaces: form.workspaces.map((id) => ({ id })),
    ...(models.length ? { allowed_models: models } : {}),
    create_default_provider: form.createDefaultProvider,
    ...(form.defaultProviderSlug.trim() ? { default_provider_slug: form.defaultProviderSlug.trim() } : {}),
  };
}

export interface IntegrationLike {
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly ai_provider: AiProvider;
  readonly status: 'active' | 'disabled';
  readonly options: Readonly<Record<string, unknown>>;
  readonly allow_all_workspaces: boolean;
  readonly allowed_models: readonly string[];
  /** Masked, as the API returns them: their names tell the shape. */
  readonly credentials: Readonly<Record<string, unknown>> | null;
  readonly secret_mappings: readonly StoredMapping[];
}

/** The edit form of an existing integration: its settings and mappings, and empty credentials. */
export function editForm(
  integration: IntegrationLike,
  enabledWorkspaces: readonly string[],
): IntegrationForm {
  const options: Record<string, string> = {};
  for (const [name, value] of Object.entries(integration.options))
    options[name] = typeof value === 'string' ? value : JSON.stringify(value);
  return {
    ...emptyIntegrationForm(),
    type: integration.ai_provider,
    shape: inferShape(integration.ai_provider, [
      ...Object.keys(integration.credentials ?? {}),
      ...integration.secret_mappings.map((m) => m.field),
    ]),
    mappings: mappingRows(integration.secret_mappings),
    name: integration.name,
    slug: integration.slug,
    description: integration.description,
    options,
    allowAll: integration.allow_all_workspaces,
    workspaces: [...enabledWorkspaces],
    allowedModels: integration.allowed_models.join('\n'),
    status: integration.status,
  };
}

/**
 * PUT /integrations/{id} body: what changed; credentials only when typed (they replace the old, the
 * mapped fields then filled from their references); `secret_mappings` only when the rows changed.
 */
export function updateBody(before: IntegrationLike, form: IntegrationForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (form.name !== before.name) body.name = form.name;
  if (form.slug.trim() !== before.slug) body.slug = form.slug.trim();
  if (form.description !== before.description) body.description = form.description;
  if (form.status !== before.status) body.status = form.status;
  const credentials = credentialsBody(form);
  if (credentials) body.credentials = credentials;
  const mappings = changedMappings(before.secret_mappings, shapeMappings(form));
  if (mappings) body.secret_mappings = mappings;
  const options = optionsBody(form);
  // Options the form does not edit (azure deployments) are kept as they were.
  const kept = Object.fromEntries(
    Object.entries(before.options).filter(([name]) => !optionFields(form.type).some((f) => f.name === name)),
  );
  const nextOptions = { ...kept, ...options };
  if (JSON.stringify(nextOptions) !== JSON.stringify(before.options)) body.options = nextOptions;
  if (form.allowAll !== before.allow_all_workspaces) body.allow_all_workspaces = form.allowAll;
  const models = parseModels(form.allowedModels);
  if (models.join('\n') !== before.allowed_models.join('\n')) body.allowed_models = models;
  return body;
}

/**
 * PUT /integrations/{id}/workspaces entries: newly given workspaces are enabled, taken-away ones
 * disabled (existing providers stay, and gateways refuse them); undefined when nothing changed.
 */
export function workspaceChanges(
  before: readonly string[],
  after: readonly string[],
): { id: string; enabled: boolean }[] | undefined {
  const was = new Set(before);
  const now = new Set(after);
  const changes = [
    ...after.filter((id) => !was.has(id)).map((id) => ({ id, enabled: true })),
    ...before.filter((id) => !now.has(id)).map((id) => ({ id, enabled: false })),
  ];
  return changes.length ? changes : undefined;
}

/** Masked credentials as the API returned them, flattened for display (`custom_headers.x-org`). */
export function maskedEntries(credentials: Readonly<Record<string, unknown>> | null): [string, string][] {
  if (credentials === null) return [];
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(credentials)) {
    if (value !== null && typeof value === 'object')
      for (const [inner, v] of Object.entries(value as Record<string, unknown>))
        out.push([`${name}.${inner}`, String(v)]);
    else out.push([name, String(value)]);
  }
  return out;
}

// Non-secret connection options of an integration or virtual key (custom host, Azure resource,
// deployments and api version, cloud region and project), validated per provider type.
import { z } from 'zod';
import { invalid } from '../api-errors.js';
import { type AiProvider, type OptionName, PROVIDER_TYPE_RULES } from './provider-types.js';

/** Values that the gateway puts into a host name must be one DNS label (docs/custom-hosts.md). */
const dnsLabel = z
  .string()
  .max(63)
  .transform((v) => v.toLowerCase())
  .pipe(
    z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
        'must be one DNS label (letters, digits, inner hyphens)',
      ),
  );

const apiVersion = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be an API version such as 2024-10-21');

/**
 * A base URL. Only its shape is checked here; whether its host is private is decided by each gateway
 * at request time (DNS answers change, and CUSTOM_HOST_ALLOWLIST is a gateway setting).
 */
export const customHostSchema = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = customHostProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((value) => value.replace(/\/+$/, ''));

function customHostProblem(value: string): string | undefined {
  if (!/^https?:\/\/[^/]/i.test(value)) return 'must start with http:// or https:// and a host';
  if (!/^[\x21-\x7e]+$/.test(value) || value.includes('\\'))
    return 'must be printable ASCII without spaces or backslashes';
  if (value.includes('?') || value.includes('#')) return 'must not have a query or a fragment';
  const authority = value.slice(value.indexOf('//') + 2).split('/', 1)[0] ?? '';
  if (authority.includes('@')) return 'must not contain credentials (user:password@)';
  if (authority.includes('%')) return 'must not percent-encode the host';
  try {
    const url = new URL(value);
    if (url.hostname === '') return 'must have a host';
  } catch {
    return 'must be a valid URL';
  }
  return undefined;
}

const deploymentSchema = z
  .object({
    deployment_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be an Azure deployment name'),
    model: z.string().min(1).max(256),
    api_version: apiVersion.optional(),
    is_default: z.boolean().optional(),
  })
  .strict();

const deploymentsSchema = z
  .array(deploymentSchema)
  .min(1)
  .max(100)
  .refine(
    (list) => new Set(list.map((d) => d.deployment_id)).size === list.length,
    'deployment_id values must be unique',
  )
  .refine((list) => list.filter((d) => d.is_default).length <= 1, 'at most one deployment is_default');

const OPTION_SCHEMAS: Readonly<Record<OptionName, z.ZodType>> = {
  custom_host: customHostSchema,
  resource_name: dnsLabel,
  api_version: apiVersion,
  deployments: deploymentsSchema,
  region: dnsLabel,
  project_id: dnsLabel,
};

export type ProviderOptions = Record<string, unknown>;

/** Validates options for a provider type: unknown or missing options are 400 AB01 naming the field. */
export function parseOptions(type: AiProvider, value: unknown, param: string): ProviderOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`${param}: must be an object`, param);
  }
  const rules = PROVIDER_TYPE_RULES[type];
  const out: ProviderOptions = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!(rules.options as readonly string[]).includes(name)) {
      const shown = JSON.stringify(name.slice(0, 64));
      throw invalid(
        `${param}: ${shown} is not an option of ${type} (allowed: ${rules.options.join(', ')})`,
        param,
      );
    }
    const result = OPTION_SCHEMAS[name as OptionName].safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = [param, name, ...(issue?.path ?? [])].map(String).join('.');
      throw invalid(`${path}: ${issue?.message ?? 'invalid value'}`, path);
    }
    out[name] = result.data;
  }
  for (const required of rules.requiredOptions ?? []) {
    if (out[required.name] !== undefined) continue;
    if (required.unless !== undefined && out[required.unless] !== undefined) continue;
    const unless = required.unless ? ` (unless ${required.unless} is set)` : '';
    throw invalid(`${param}.${required.name}: required for ${type}${unless}`, `${param}.${required.name}`);
  }
  return out;
}

/** The proto form (map<string, string>): structured values travel as JSON text. */
export function optionsToProto(options: ProviderOptions): Record<string, string> {
  return Object.fromEntries(
    Object.entries(options).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
}

// The SCIM User resource (RFC 7643 4.1) as this control plane maps it onto a user row: userName is
// the e-mail, name.givenName/familyName the names, active the status, externalId the IdP's id.
import { z } from 'zod';
import type { UserRow } from '../users/users.entity.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

export interface ScimUser {
  readonly schemas: string[];
  readonly id: string;
  readonly externalId?: string;
  readonly userName: string;
  readonly name: { givenName: string; familyName: string; formatted: string };
  readonly displayName: string;
  readonly emails: { value: string; type: 'work'; primary: true }[];
  readonly active: boolean;
  readonly meta: {
    resourceType: 'User';
    created: string;
    lastModified: string;
    location: string;
    version: string;
  };
}

/** The row as a SCIM User; `base` is the SCIM base URL (`https://host/scim/v2`). */
export function userToScim(row: UserRow, base: string): ScimUser {
  const formatted = `${row.first_name} ${row.last_name}`.trim();
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.external_id === null ? {} : { externalId: row.external_id }),
    userName: row.email,
    name: { givenName: row.first_name, familyName: row.last_name, formatted },
    displayName: formatted === '' ? row.email : formatted,
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.status === 'active',
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Users/${row.id}`,
      version: `W/"${row.version}"`,
    },
  };
}

/** Entra ID sends booleans as the strings "True"/"False" in PATCH values: both are accepted. */
const scimBoolean = z.union([
  z.boolean(),
  z
    .string()
    .regex(/^(true|false)$/i, 'must be true or false')
    .transform((v) => v.toLowerCase() === 'true'),
]);

const nameField = z.string().trim().max(255);

/**
 * What a create, replace or patched resource says: unknown attributes (title, phoneNumbers, an
 * enterprise extension) are accepted and ignored, as RFC 7644 3.3 lets a service provider do;
 * displayName and emails are accepted but not stored (they are read back from the names and userName).
 */
export const scimUserInput = z
  .object({
    schemas: z
      .array(z.string())
      .refine((s) => s.includes(USER_SCHEMA), `must include ${USER_SCHEMA}`)
      .optional(),
    userName: z
      .string()
      .trim()
      .max(320)
      .pipe(z.email('must be an e-mail address (the user signs in with it)'))
      .transform((v) => v.toLowerCase()),
    externalId: z.string().min(1).max(1024).nullish(),
    name: z.looseObject({ givenName: nameField.nullish(), familyName: nameField.nullish() }).nullish(),
    displayName: z.string().max(1024).nullish(),
    active: scimBoolean.default(true),
    emails: z.array(z.looseObject({ value: z.string().max(320).optional() })).nullish(),
  })
  .loose();

export type ScimUserInput = z.output<typeof scimUserInput>;

/** The row fields a SCIM User input sets (replace semantics: absent names become empty). */
export function desiredFields(input: ScimUserInput) {
  return {
    email: input.userName,
    first_name: input.name?.givenName ?? '',
    last_name: input.name?.familyName ?? '',
    external_id: input.externalId ?? null,
    active: input.active,
  };
}

/** The first issue of a failed parse, as `path: message`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map(String).join('.');
  return `${path === '' ? 'body' : path}: ${issue?.message ?? 'invalid value'}`;
}

// The discovery documents of RFC 7644 4 (ServiceProviderConfig, ResourceTypes, Schemas): what this
// server supports, so identity providers do not try what it would refuse.
import { USER_SCHEMA } from './scim-user.js';

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const MAX_RESULTS = 200;

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Admin API key',
        description:
          'An organisation-level admin API key holding the scim.provision scope, sent as Authorization: Bearer <key>.',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function userResourceType(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A user of the organisation',
    schema: USER_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  };
}

const attribute = (
  name: string,
  type: 'string' | 'boolean' | 'complex',
  extra: Record<string, unknown> = {},
) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export function userSchemaDocument(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: USER_SCHEMA,
    name: 'User',
    description: 'A user of the organisation (userName is the e-mail address)',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId', 'string', { caseExact: true }),
      attribute('name', 'complex', {
        subAttributes: [
          attribute('givenName', 'string'),
          attribute('familyName', 'string'),
          attribute('formatted', 'string', { mutability: 'readOnly' }),
        ],
      }),
      attribute('displayName', 'string', { mutability: 'readOnly' }),
      attribute('emails', 'complex', {
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [
          attribute('value', 'string'),
          attribute('type', 'string'),
          attribute('primary', 'boolean'),
        ],
      }),
      attribute('active', 'boolean'),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
  };
}

/** A ListResponse of every item (discovery lists are never paged). */
export function listOf<T>(items: readonly T[]) {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: items.length,
    startIndex: 1,
    itemsPerPage: items.length,
    Resources: items,
  };
}

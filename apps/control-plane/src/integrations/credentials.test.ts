import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { maskCredentials, maskSecret, parseCredentials } from './credentials.js';
import { slugFromName } from './integrations.schema.js';
import { optionsToProto, parseOptions } from './options.js';
import { tagFilterSchema } from './tags.js';

function refusal(fn: () => unknown): { param: string | null; message: string; code: string | null } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.status).toBe(400);
    return { param: e.param, message: e.message, code: e.code };
  }
  throw new Error('expected a 400');
}

const SA = {
  type: 'service_account',
  project_id: 'proj',
  private_key_id: 'abcdef0123456789kid9',
  private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
  client_email: 'svc@proj.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
};

describe('parseCredentials', () => {
  it('picks the shape by its fields and keeps only known fields', () => {
    expect(parseCredentials('openai', { api_key: 'sk-1234567890abcd' }, 'body.credentials')).toEqual({
      api_key: 'sk-1234567890abcd',
    });
    const entra = { client_id: 'cid', client_secret: 'secret-value-1234', tenant_id: 'tid' };
    expect(parseCredentials('azure-openai', entra, 'body.credentials')).toEqual(entra);
    const aws = { aws_access_key_id: 'AKIAABCDEFGHIJKLMNOP', aws_secret_access_key: 'x/y+z0123456789' };
    expect(parseCredentials('bedrock', aws, 'body.credentials')).toEqual(aws);
    expect(parseCredentials('ollama', { custom_headers: { 'x-team': 'abc' } }, 'c')).toEqual({
      custom_headers: { 'x-team': 'abc' },
    });
  });

  it('reads a service account key file given as an object or as its text', () => {
    expect(parseCredentials('vertex-ai', { service_account_json: SA }, 'c')).toEqual({
      service_account_json: SA,
    });
    expect(parseCredentials('vertex-ai', { service_account_json: JSON.stringify(SA) }, 'c')).toEqual({
      service_account_json: SA,
    });
    expect(
      refusal(() => parseCredentials('vertex-ai', { service_account_json: '{not json' }, 'c')).param,
    ).toBe('c.service_account_json');
    expect(
      refusal(() => parseCredentials('vertex-ai', { service_account_json: { ...SA, type: 'user' } }, 'c'))
        .param,
    ).toBe('c.service_account_json.type');
  });

  it('names the field of every refusal, in AB01', () => {
    const cases: [Parameters<typeof parseCredentials>[0], unknown, string][] = [
      ['openai', {}, 'body.credentials'],
      ['openai', [], 'body.credentials'],
      ['openai', { api_key: '' }, 'body.credentials.api_key'],
      ['openai', { api_key: 'with\nnewline' }, 'body.credentials.api_key'],
      ['openai', { api_key: ' padded ' }, 'body.credentials.api_key'],
      ['openai', { api_key: 'k'.repeat(4097) }, 'body.credentials.api_key'],
      ['openai', { api_key: 'sk-1', extra: 'x' }, 'body.credentials'],
      ['openai', { client_id: 'a', client_secret: 'b', tenant_id: 'c' }, 'body.credentials'],
      ['azure-openai', { client_id: 'a', client_secret: 'b' }, 'body.credentials.tenant_id'],
      ['azure-openai', { api_key: 'k', client_id: 'a' }, 'body.credentials'],
      [
        'bedrock',
        { aws_access_key_id: 'lower', aws_secret_access_key: 's' },
        'body.credentials.aws_access_key_id',
      ],
      ['bedrock', { aws_secret_access_key: 's' }, 'body.credentials.aws_access_key_id'],
      ['openai', { api_key: 'k', custom_headers: { Host: 'evil' } }, 'body.credentials.custom_headers.Host'],
      [
        'openai',
        { api_key: 'k', custom_headers: { 'x-service-config': 'x' } },
        'body.credentials.custom_headers.x-service-config',
      ],
      [
        'openai',
        { api_key: 'k', custom_headers: { 'bad name': 'x' } },
        'body.credentials.custom_headers.bad name',
      ],
      [
        'openai',
        { api_key: 'k', custom_headers: { 'x-a': 'v\r\nx-b: y' } },
        'body.credentials.custom_headers.x-a',
      ],
      ['openai', { api_key: 'k', custom_headers: {} }, 'body.credentials.custom_headers'],
      [
        'openai',
        { api_key: 'k', custom_headers: { 'X-A': '1', 'x-a': '2' } },
        'body.credentials.custom_headers',
      ],
    ];
    for (const [type, value, param] of cases) {
      const error = refusal(() => parseCredentials(type, value, 'body.credentials'));
      expect(error, `${type} ${JSON.stringify(value)}`).toMatchObject({ param, code: 'AB01' });
      expect(error.message.startsWith(`${param}:`)).toBe(true);
    }
  });

  it('never echoes a credential value in an error', () => {
    const secret = 'sk-do-not-echo-0123456789';
    const error = refusal(() => parseCredentials('openai', { api_key: `${secret}\n` }, 'c'));
    expect(error.message).not.toContain(secret);
  });
});

describe('masking', () => {
  it('shows the last four characters of long secrets only, header names in full', () => {
    expect(maskSecret('sk-0123456789abcd')).toBe('****abcd');
    expect(maskSecret('short-12345')).toBe('****');
    expect(
      maskCredentials({
        api_key: 'sk-0123456789abcd',
        custom_headers: { 'x-org': 'org-value-0123456789' },
      }),
    ).toEqual({ api_key: '****abcd', custom_headers: { 'x-org': '****6789' } });
    expect(maskCredentials({ service_account_json: SA })).toEqual({ service_account_json: '****kid9' });
  });
});

describe('parseOptions', () => {
  it('keeps the options of the type, lower-cases host labels and trims a trailing slash', () => {
    expect(
      parseOptions(
        'azure-openai',
        {
          resource_name: 'My-Resource',
          api_version: '2024-10-21',
          deployments: [{ deployment_id: 'gpt4o-prod', model: 'gpt-4o', is_default: true }],
        },
        'o',
      ),
    ).toEqual({
      resource_name: 'my-resource',
      api_version: '2024-10-21',
      deployments: [{ deployment_id: 'gpt4o-prod', model: 'gpt-4o', is_default: true }],
    });
    expect(parseOptions('openai', { custom_host: 'https://llm.example.com/v1/' }, 'o')).toEqual({
      custom_host: 'https://llm.example.com/v1',
    });
    expect(parseOptions('azure-openai', { custom_host: 'http://10.0.0.5:9000' }, 'o')).toEqual({
      custom_host: 'http://10.0.0.5:9000',
    });
  });

  it('refuses unknown, missing and malformed options with their path', () => {
    const cases: [Parameters<typeof parseOptions>[0], unknown, string][] = [
      ['openai', { region: 'us-east-1' }, 'o'],
      ['bedrock', {}, 'o.region'],
      ['azure-openai', {}, 'o.resource_name'],
      ['openai-compatible', {}, 'o.custom_host'],
      ['bedrock', { region: 'us-east-1.evil.com' }, 'o.region'],
      ['vertex-ai', { project_id: 'a_b' }, 'o.project_id'],
      ['openai', { custom_host: 'ftp://x.example.com' }, 'o.custom_host'],
      ['openai', { custom_host: 'https://user:pw@x.example.com' }, 'o.custom_host'],
      ['openai', { custom_host: 'http://x.example.com@127.0.0.1' }, 'o.custom_host'],
      ['openai', { custom_host: 'https://x.example.com/?a=1' }, 'o.custom_host'],
      ['openai', { custom_host: 'https://x.example.com#frag' }, 'o.custom_host'],
      ['openai', { custom_host: 'https://%6c%6fcalhost' }, 'o.custom_host'],
      ['openai', { custom_host: 'https://x.example.com\\@y' }, 'o.custom_host'],
      ['openai', { custom_host: 'https:///path' }, 'o.custom_host'],
      ['azure-openai', { resource_name: 'r', deployments: [] }, 'o.deployments'],
      [
        'azure-openai',
        { resource_name: 'r', deployments: [{ deployment_id: '..', model: 'm' }] },
        'o.deployments.0.deployment_id',
      ],
      [
        'azure-openai',
        { resource_name: 'r', deployments: [{ deployment_id: 'a', model: 'm', extra: 1 }] },
        'o.deployments.0',
      ],
      ['azure-openai', { resource_name: 'r', api_version: '../x' }, 'o.api_version'],
    ];
    for (const [type, value, param] of cases) {
      expect(refusal(() => parseOptions(type, value, 'o')).param, `${type} ${JSON.stringify(value)}`).toBe(
        param,
      );
    }
  });

  it('sends structured options to gateways as JSON text', () => {
    expect(
      optionsToProto({ region: 'eu-west-1', deployments: [{ deployment_id: 'd', model: 'm' }] }),
    ).toEqual({
      region: 'eu-west-1',
      deployments: '[{"deployment_id":"d","model":"m"}]',
    });
  });
});

describe('tag filters', () => {
  it('parses one key:value pair per parameter, the value may hold ":" and ","', () => {
    expect(tagFilterSchema.parse('team:core')).toEqual({ team: 'core' });
    expect(tagFilterSchema.parse(['team:core', 'url:http://x,y'])).toEqual({
      team: 'core',
      url: 'http://x,y',
    });
    expect(tagFilterSchema.parse('env:')).toEqual({ env: '' });
  });

  it.each([['nocolon'], [':value'], [['a:1', 'a:2']], ['bad key:1']])('refuses %j', (value) => {
    expect(tagFilterSchema.safeParse(value).success).toBe(false);
  });
});

describe('slugFromName', () => {
  it('derives a lowercase slug, or the fallback', () => {
    expect(slugFromName('Prod OpenAI (EU)', 'x')).toBe('prod-openai-eu');
    expect(slugFromName('Émile', 'x')).toBe('emile');
    expect(slugFromName('!!!', 'integration')).toBe('integration');
  });
});

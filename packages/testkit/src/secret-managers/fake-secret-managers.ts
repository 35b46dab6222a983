// Secret managers simulated over their documented HTTP APIs, for tests of secret references: one
// loopback server that answers HashiCorp Vault's KV v2 reads (`GET /v1/<mount>/data/<path>` with
// `X-Vault-Token`) and AWS Secrets Manager's `GetSecretValue` (JSON 1.1 protocol, `X-Amz-Target`),
// checking the SigV4 signature by signing the request again with the AWS SDK's own signer.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

export interface FakeSecretManagers {
  /** `http://127.0.0.1:<port>`: the Vault address and the AWS endpoint. */
  readonly url: string;
  /** Vault token and AWS keys the server accepts. */
  readonly vaultToken: string;
  readonly aws: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly region: string };
  /** Sets a Vault KV v2 entry (`<mount>/<path>`, a new version each time). */
  setVault(mountAndPath: string, data: Record<string, string>): void;
  /** Sets an AWS secret's SecretString. */
  setAws(secretId: string, secretString: string): void;
  /** While set, every request is answered with this status (an outage, then `undefined` to recover). */
  failWith(status: number | undefined): void;
  /** Requests seen, in order: which API, and whether the credentials checked out. */
  readonly requests: { api: 'vault' | 'aws'; path: string; authorised: boolean }[];
  close(): Promise<void>;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeSecretManagers(): Promise<FakeSecretManagers> {
  const vaultToken = `hvs.${randomUUID()}`;
  const aws = { accessKeyId: 'AKIAFAKESECRETS0001', secretAccessKey: randomUUID(), region: 'eu-west-1' };
  const vault = new Map<string, { data: Record<string, string>; version: number }>();
  const awsSecrets = new Map<string, string>();
  const requests: FakeSecretManagers['requests'] = [];
  let failing: number | undefined;

  const signer = new SignatureV4({
    service: 'secretsmanager',
    region: aws.region,
    sha256: Hash.bind(null, 'sha256'),
    credentials: { accessKeyId: aws.accessKeyId, secretAccessKey: aws.secretAccessKey },
  });

  async function awsAuthorised(req: IncomingMessage, body: string): Promise<boolean> {
    const amzDate = req.headers['x-amz-date'];
    const given = req.headers.authorization;
    if (typeof amzDate !== 'string' || typeof given !== 'string') return false;
    const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!when) return false;
    const signingDate = new Date(`${when[1]}-${when[2]}-${when[3]}T${when[4]}:${when[5]}:${when[6]}Z`);
    const [hostname, port] = (req.headers.host ?? '').split(':');
    const again = await signer.sign(
      {
        method: req.method ?? 'POST',
        protocol: 'http:',
        hostname: hostname ?? '',
        ...(port ? { port: Number(port) } : {}),
        path: req.url ?? '/',
        query: {},
        headers: {
          host: req.headers.host ?? '',
          'content-type': String(req.headers['content-type'] ?? ''),
          'x-amz-target': String(req.headers['x-amz-target'] ?? ''),
        },
        body,
      },
      { signingDate },
    );
    return again.headers.authorization === given;
  }

  const server: Server = createServer(async (req, res) => {
    const body = await read(req);
    const answer = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    const vaultPath = /^\/v1\/([^/]+)\/data\/(.+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && vaultPath) {
      const authorised = req.headers['x-vault-token'] === vaultToken;
      requests.push({
        api: 'vault',
        path: `${vaultPath[1]}/${decodeURIComponent(vaultPath[2] ?? '')}`,
        authorised,
      });
      if (failing) return answer(failing, { errors: ['internal error: do not show this'] });
      if (!authorised) return answer(403, { errors: ['permission denied'] });
      const entry = vault.get(`${vaultPath[1]}/${decodeURIComponent(vaultPath[2] ?? '')}`);
      if (!entry) return answer(404, { errors: [] });
      return answer(200, {
        request_id: randomUUID(),
        lease_id: '',
        renewable: false,
        lease_duration: 0,
        data: { data: entry.data, metadata: { version: entry.version, destroyed: false, deletion_time: '' } },
      });
    }
    if (req.method === 'POST' && req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue') {
      const authorised = await awsAuthorised(req, body);
      const secretId = (JSON.parse(body || '{}') as { SecretId?: string }).SecretId ?? '';
      requests.push({ api: 'aws', path: secretId, authorised });
      if (failing) return answer(failing, { __type: 'InternalServiceError', Message: 'do not show this' });
      if (!authorised)
        return answer(400, { __type: 'InvalidSignatureException', Message: 'signature mismatch' });
      const secret = awsSecrets.get(secretId);
      if (secret === undefined)
        return answer(400, { __type: 'ResourceNotFoundException', Message: 'not found' });
      return answer(200, {
        ARN: `arn:aws:secretsmanager:${aws.region}:000000000000:secret:${secretId}`,
        Name: secretId,
        VersionId: randomUUID(),
        SecretString: secret,
        CreatedDate: Date.now() / 1000,
      });
    }
    answer(404, { errors: ['no such route'] });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    vaultToken,
    aws,
    setVault(mountAndPath, data) {
      vault.set(mountAndPath, { data, version: (vault.get(mountAndPath)?.version ?? 0) + 1 });
    },
    setAws(secretId, secretString) {
      awsSecrets.set(secretId, secretString);
    },
    failWith(status) {
      failing = status;
    },
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// Stage (control-plane mode, a managed provider with an allow-list): a batch runs the models its
// requests name, which its creation's body does not. Without this stage a batch was a way around
// `allowed_models`: its creation names no model, so it passed as "not a model call". Now every
// request of a batch must name an allowed model before the batch is created (403
// `model_not_allowed`, the provider not asked to create it):
//   - OpenAI-style (`POST /batches` with `input_file_id`; OpenAI, Azure OpenAI and compatible
//     hosts): the input file is read from the provider (`GET /files/{id}/content`, as the client's
//     own credentials would read it), a line at a time, each line's `body.model` checked (for Azure,
//     a deployment name: it must be one of the provider's deployments serving an allowed model);
//   - Anthropic (`POST /messages/batches`): the requests are in the body, `requests[].params.model`.
// A request without a model is left to the provider, as a single call without one is.
import { assertNamedModelAllowed, batchCreation } from '../access/index.js';
import { gatewayError } from '../errors.js';
import type { ServiceHeaders } from '../request/service-headers.js';
import { openExchange, type UpstreamExchange } from '../upstream/upstream-exchange.js';
import { type CallDeps, providerCallHeaders } from './call-upstream.js';
import type { PlainTarget, RequestContext } from './request-context.js';

const NO_BODY = Buffer.alloc(0);

/** Undefined (nothing to wait for) unless the request creates a batch under an allow-list. */
export function checkBatchModels(
  ctx: RequestContext,
  target: PlainTarget,
  deps: CallDeps,
): Promise<void> | undefined {
  const managed = target.managed;
  if (managed === undefined || managed.allowedModels.length === 0) return;
  const creation = batchCreation(ctx.method, ctx.path);
  if (creation === undefined) return;
  const json = ctx.json as Record<string, unknown> | undefined;
  if (creation === 'requests') {
    const requests = Array.isArray(json?.requests) ? json.requests : [];
    requests.forEach((request: unknown, i) => {
      const model = (request as { params?: { model?: unknown } } | null)?.params?.model;
      if (typeof model === 'string') assertNamedModelAllowed(managed, model, `requests[${i}].params.model`);
    });
    return;
  }
  const fileId = json?.input_file_id;
  if (typeof fileId !== 'string') return;
  return checkInputFile(ctx, target, fileId, deps);
}

async function checkInputFile(
  ctx: RequestContext,
  target: PlainTarget,
  fileId: string,
  deps: CallDeps,
): Promise<void> {
  const managed = target.managed as NonNullable<PlainTarget['managed']>;
  const service = ctx.service as ServiceHeaders;
  const base = target.base;
  const upstream = await target.provider.buildTarget({
    method: 'GET',
    path: `/files/${encodeURIComponent(fileId)}/content`,
    search: '',
    headers: base.headers,
    token: base.token,
    cloud: base.cloud,
    customHost: base.customHost,
  });
  const headers = providerCallHeaders(ctx, target, upstream);
  // The creation's own body headers do not describe this read.
  delete headers['content-type'];
  delete headers['content-length'];
  headers['accept-encoding'] = 'identity';
  const exchange = await openExchange({
    method: 'GET',
    url: upstream.url,
    headers,
    body: NO_BODY,
    lookup: target.host?.lookup,
    timeoutMs: service.requestTimeoutMs,
    idleTimeoutMs: deps.idleTimeoutMs,
  });
  const answer = exchange.response;
  if (!answer) throw unreadable(fileId, exchange.error?.message ?? 'no answer');
  // No such file: the provider refuses the creation itself, in its own words.
  if (answer.statusCode === 404) {
    exchange.abort();
    return;
  }
  if (answer.statusCode < 200 || answer.statusCode >= 300) {
    exchange.abort();
    throw unreadable(fileId, `the provider answered ${answer.statusCode}`);
  }
  await scanLines(exchange, deps.maxBodyBytes, fileId, (line, number) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return; // the provider reports a line it cannot read (the batch's `errors`)
    }
    const model = (parsed as { body?: { model?: unknown } } | null)?.body?.model;
    if (typeof model === 'string') {
      assertNamedModelAllowed(managed, model, `input_file_id (line ${number})`);
    }
  });
}

/** Calls `check` with each non-empty line of the answer (1-based numbers); a throw stops the read. */
function scanLines(
  exchange: UpstreamExchange,
  maxLineBytes: number,
  fileId: string,
  check: (line: string, number: number) => void,
): Promise<void> {
  const answer = exchange.response as NonNullable<UpstreamExchange['response']>;
  return new Promise((resolve, reject) => {
    let rest = '';
    let number = 0;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      exchange.abort();
      reject(err);
    };
    const take = (text: string) => {
      const line = text.trim();
      number += 1;
      if (line !== '') check(line, number);
    };
    answer.setEncoding('utf8');
    answer.on('data', (chunk: string) => {
      if (failed) return;
      try {
        let from = 0;
        let at = chunk.indexOf('\n');
        while (at >= 0) {
          take(rest + chunk.slice(from, at));
          rest = '';
          from = at + 1;
          at = chunk.indexOf('\n', from);
        }
        rest += chunk.slice(from);
        if (rest.length > maxLineBytes) {
          throw gatewayError(
            'payload_too_large',
            `line ${number + 1} of the batch's input file "${fileId.slice(0, 64)}" is longer than ${maxLineBytes} bytes: its model cannot be checked`,
            { param: 'input_file_id' },
          );
        }
      } catch (err) {
        fail(err);
      }
    });
    answer.on('end', () => {
      if (failed) return;
      try {
        if (rest !== '') take(rest);
        exchange.settle();
        resolve();
      } catch (err) {
        fail(err);
      }
    });
    answer.on('close', () => {
      if (!answer.complete) fail(unreadable(fileId, exchange.error?.message ?? 'the answer was cut short'));
    });
  });
}

function unreadable(fileId: string, why: string) {
  return gatewayError(
    'batch_input_unchecked',
    `the batch's input file "${fileId.slice(0, 64)}" could not be read to check its models against the provider's allowed_models (${why})`,
    { param: 'input_file_id' },
  );
}

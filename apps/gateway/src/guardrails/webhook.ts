// The webhook check's HTTP call: POST JSON to an SSRF-checked URL, connect only to the checked
// addresses, never follow a redirect, bound time and answer size. Any failure fails the check.
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { CheckedWebhookHost, WebhookAnswer, WebhookCall, WebhookCaller } from './types.js';

/** Larger answers are cut off and fail the check: the answer's `data` ends up in responses and events. */
export const DEFAULT_WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookCallerDeps {
  /** SSRF check of the URL (createWebhookHostCheck); rejects when the URL is refused. */
  readonly checkHost: (url: string) => Promise<CheckedWebhookHost>;
  readonly maxResponseBytes?: number;
}

/** Headers the gateway owns: a check's `headers` cannot set them. */
const RESERVED = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'expect',
]);

const fail = (error: string): WebhookAnswer => ({ verdict: false, error });

export function createWebhookCaller(deps: WebhookCallerDeps): WebhookCaller {
  const maxBytes = deps.maxResponseBytes ?? DEFAULT_WEBHOOK_MAX_RESPONSE_BYTES;
  return async (call) => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<WebhookAnswer>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve(fail(`did not answer within ${call.timeoutMs} ms`));
      }, call.timeoutMs);
    });
    try {
      const answer = await Promise.race([attempt(call, deps, maxBytes, controller.signal), timedOut]);
      // The messages below are written without their subject: it is the callee's name.
      return answer.error === undefined ? answer : fail(`${call.callee ?? 'the webhook'} ${answer.error}`);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  };
}

async function attempt(
  call: WebhookCall,
  deps: WebhookCallerDeps,
  maxBytes: number,
  signal: AbortSignal,
): Promise<WebhookAnswer> {
  let host: CheckedWebhookHost;
  try {
    host = await deps.checkHost(call.url);
  } catch (err) {
    return fail(`url is refused: ${(err as Error).message}`);
  }
  if (signal.aborted) return fail('call was aborted');
  let body: string;
  try {
    body = JSON.stringify(call.payload);
  } catch (err) {
    return fail(`payload cannot be serialised: ${(err as Error).message}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) {
    if (!RESERVED.has(name.toLowerCase())) headers[name] = value;
  }
  Object.assign(headers, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    accept: 'application/json',
  });
  try {
    const text = await post(host, headers, body, maxBytes, signal);
    return parseAnswer(text);
  } catch (err) {
    return fail((err as Error).message);
  }
}

function post(
  host: CheckedWebhookHost,
  headers: Record<string, string>,
  body: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const send = host.url.protocol === 'https:' ? https.request : http.request;
    // No agent: a fresh connection through the pinned lookup, never a pooled socket.
    const options = {
      ...urlToHttpOptions(host.url),
      method: 'POST',
      headers,
      agent: false,
      lookup: host.lookup,
      signal,
    };
    const req = send(options, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
        reject(new Error(`answered with status ${status}${redirect}`));
        req.destroy();
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (declared > maxBytes) {
        reject(tooLarge(maxBytes));
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          reject(tooLarge(maxBytes));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', (err) => reject(new Error(`answer was cut off: ${err.message}`)));
    });
    req.on('error', (err) => reject(new Error(`call failed: ${err.message}`)));
    req.end(body);
  });
}

const tooLarge = (maxBytes: number): Error => new Error(`answer is larger than ${maxBytes} bytes`);

function parseAnswer(text: string): WebhookAnswer {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return fail('answer is not JSON');
  }
  if (
    typeof answer !== 'object' ||
    answer === null ||
    typeof (answer as { verdict?: unknown }).verdict !== 'boolean'
  ) {
    return fail('answer has no boolean "verdict"');
  }
  const { verdict, data } = answer as { verdict: boolean; data?: unknown };
  return data === undefined ? { verdict } : { verdict, data };
}

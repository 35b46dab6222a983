// The /_mock/ control surface: health, recorded requests, knobs and counters (never auth-checked).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openaiError } from './errors.js';
import { sendBody } from './http-io.js';
import { KnobError } from './knobs.js';
import { serializeRecord, splitUrl } from './record.js';
import type { MockProvider } from './types.js';

function json(res: ServerResponse, status: number, body: unknown): void {
  sendBody(res, status, 'application/json', JSON.stringify(body));
}

function problem(res: ServerResponse, status: number, message: string): void {
  json(res, status, openaiError(status, message, 'invalid_request_error').body);
}

export function handleControl(
  mock: MockProvider,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
): void {
  const { rawPath, rawQuery } = splitUrl(req.url ?? '/');
  const query = new URLSearchParams(rawQuery);
  const route = `${req.method} ${rawPath.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /_mock/health': {
      json(res, 200, { status: 'ok' });
      return;
    }
    case 'GET /_mock/requests': {
      const provider = query.get('provider');
      const path = query.get('path');
      const data = mock.requests
        .filter((r) => (provider === null || r.provider === provider) && (path === null || r.path === path))
        .map(serializeRecord);
      json(res, 200, { object: 'list', data, total: data.length });
      return;
    }
    case 'DELETE /_mock/requests':
      mock.clear();
      res.writeHead(204).end();
      return;
    case 'DELETE /_mock/counters':
      mock.resetCounters(query.get('scenario') ?? undefined);
      res.writeHead(204).end();
      return;
    case 'GET /_mock/config': {
      json(res, 200, mock.knobs);
      return;
    }
    case 'POST /_mock/config': {
      let patch: unknown;
      try {
        patch = JSON.parse(body.toString('utf8') || '{}');
      } catch {
        problem(res, 400, 'POST /_mock/config expects a JSON object of knobs');
        return;
      }
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
        problem(res, 400, 'POST /_mock/config expects a JSON object of knobs');
        return;
      }
      try {
        mock.configure(patch);
      } catch (err) {
        if (err instanceof KnobError) {
          problem(res, 400, err.message);
          return;
        }
        throw err;
      }
      json(res, 200, mock.knobs);
      return;
    }
    case 'POST /_mock/reset':
      mock.reset();
      json(res, 200, mock.knobs);
      return;
    default: {
      problem(res, 404, `Unknown control endpoint (${route})`);
      return;
    }
  }
}

// The per-request context handed to route handlers, and the server state they may touch.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorStyle } from './errors.js';
import type { AwsCredentials, KeyedProvider, MockKnobs, RecordedRequest } from './types.js';

export interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: number;
  createdAt: number;
  data: Buffer;
}

export interface MockState {
  files: Map<string, StoredFile>;
  aws: AwsCredentials;
  /** Accepted keys per provider; absent means any non-empty key. */
  apiKeys: Partial<Record<KeyedProvider, ReadonlySet<string>>>;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  params: Record<string, string>;
  query: URLSearchParams;
  knobs: MockKnobs;
  style: ErrorStyle;
  state: MockState;
}

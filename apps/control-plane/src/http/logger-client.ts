// The control plane's client of the logger's LogsService: promise calls with a deadline, and gRPC
// failures turned into admin API errors (an unreachable logger is a 503 in the error envelope).
// GetUsage has its own short deadline: it decorates admin reads, which must not wait on the logger.
import {
  type DownloadExportRequest,
  type DownloadExportResponse,
  type GetUsageRequest,
  type GetUsageResponse,
  LogsServiceClient,
} from '@aigw/proto';
import { AppError, type Logger } from '@aigw/runtime';
import {
  type CallOptions,
  type ClientReadableStream,
  credentials,
  Metadata,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { apiError } from '../api-errors.js';

type UnaryMethod = {
  [K in keyof LogsServiceClient]: LogsServiceClient[K] extends (
    request: infer _Req,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: infer _Res) => void,
  ) => unknown
    ? K
    : never;
}[keyof LogsServiceClient];

type RequestOf<K extends UnaryMethod> = Parameters<LogsServiceClient[K]>[0];
type ResponseOf<K extends UnaryMethod> = Parameters<
  Extract<Parameters<LogsServiceClient[K]>[3], (...args: never[]) => unknown>
>[1];

export interface LoggerClient {
  call<K extends UnaryMethod>(method: K, request: RequestOf<K>): Promise<NonNullable<ResponseOf<K>>>;
  download(request: DownloadExportRequest): ClientReadableStream<DownloadExportResponse>;
  /**
   * GetUsage with the usage deadline; rejects with the gRPC error as is. After a call that timed
   * out, calls fail at once for USAGE_PAUSE_MS, so a blackholed logger delays one read, not all.
   */
  getUsage(request: GetUsageRequest): Promise<GetUsageResponse>;
  close(): void;
}

/** How long GetUsage is not tried after one of its calls timed out. */
export const USAGE_PAUSE_MS = 5000;

export interface LoggerClientOptions {
  readonly url: string;
  readonly token?: string;
  readonly timeoutMs: number;
  /** Deadline of GetUsage (LOGGER_USAGE_TIMEOUT_MS). */
  readonly usageTimeoutMs?: number;
  readonly log: Logger;
}

export function createLoggerClient(options: LoggerClientOptions): LoggerClient {
  const client = new LogsServiceClient(options.url, credentials.createInsecure());
  let usagePausedUntil = 0;
  const metadata = () => {
    const m = new Metadata();
    if (options.token) m.set('authorization', `Bearer ${options.token}`);
    return m;
  };
  return {
    call(method, request) {
      return new Promise((resolve, reject) => {
        const fn = client[method] as unknown as (
          request: unknown,
          metadata: Metadata,
          options: Partial<CallOptions>,
          callback: (error: ServiceError | null, response: unknown) => void,
        ) => unknown;
        fn.call(
          client,
          request,
          metadata(),
          { deadline: Date.now() + options.timeoutMs },
          (err, response) => {
            if (err) reject(loggerError(err, options.log, method));
            else resolve(response as never);
          },
        );
      });
    },
    getUsage(request) {
      if (Date.now() < usagePausedUntil)
        return Promise.reject(pausedError('GetUsage paused after a timeout'));
      return new Promise((resolve, reject) => {
        client.getUsage(
          request,
          metadata(),
          { deadline: Date.now() + (options.usageTimeoutMs ?? 1000) },
          (err, response) => {
            if (err?.code === status.DEADLINE_EXCEEDED) usagePausedUntil = Date.now() + USAGE_PAUSE_MS;
            if (err) reject(err);
            else resolve(response);
          },
        );
      });
    },
    download(request) {
      // No deadline: a large file may take long; the caller cancels the stream when its client leaves.
      return client.downloadExport(request, metadata());
    },
    close() {
      client.close();
    },
  };
}

/** The admin API error for a LogsService failure. */
export function loggerError(err: ServiceError, log: Logger, method: string): AppError {
  switch (err.code) {
    case status.INVALID_ARGUMENT:
      return apiError('AB01', err.details);
    case status.NOT_FOUND:
      return apiError('AB08', err.details);
    case status.ALREADY_EXISTS:
    case status.FAILED_PRECONDITION:
      return apiError('AB07', err.details);
    case status.PERMISSION_DENIED:
      return apiError('AB03', err.details);
    case status.UNAVAILABLE:
    case status.DEADLINE_EXCEEDED:
      log.warn({ method, code: err.code, details: err.details }, 'logger unavailable');
      return loggerUnavailable(
        err.code === status.DEADLINE_EXCEEDED
          ? 'the logger did not answer in time'
          : 'the logger is unreachable',
      );
    case status.UNAUTHENTICATED:
      // An operator's mistake, not the caller's: the two tokens differ. Unavailable until fixed.
      log.error(
        { method },
        'the logger refused the service token: LOGGER_SERVICE_TOKEN here must equal LOGS_SERVICE_TOKEN there',
      );
      return loggerUnavailable("the logger refused this control plane's service token");
    default:
      log.error({ method, code: err.code, details: err.details }, 'LogsService call failed');
      return apiError('AB04', 'internal server error');
  }
}

function pausedError(details: string): ServiceError {
  return Object.assign(new Error(details), { code: status.UNAVAILABLE, details, metadata: new Metadata() });
}

export function loggerUnavailable(reason: string): AppError {
  return new AppError(
    503,
    'server_error',
    `${reason}: logs, analytics, audit logs and feedback are unavailable; retry later`,
    {
      code: 'logger_unavailable',
    },
  );
}

export { status as grpcStatus };

// gRPC LogsService. The queries arrive with the logs/analytics work; until then every method
// answers UNIMPLEMENTED explicitly (rather than "unknown service"), so callers see a clear reason.
import { LogsServiceService } from '@aigw/proto';
import type { GrpcService } from '@aigw/runtime';
import { type handleUnaryCall, status, type UntypedServiceImplementation } from '@grpc/grpc-js';

export function logsService(): GrpcService {
  const implementation: UntypedServiceImplementation = {};
  for (const method of Object.keys(LogsServiceService)) {
    const handler: handleUnaryCall<unknown, unknown> = (_call, callback) => {
      callback({
        code: status.UNIMPLEMENTED,
        details: `LogsService.${method} is not available in this release`,
      });
    };
    implementation[method] = handler;
  }
  return { definition: LogsServiceService, implementation };
}

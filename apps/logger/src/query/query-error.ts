// Errors of LogsService queries, each with the gRPC status the service answers with.
import { status } from '@grpc/grpc-js';

export class QueryError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
    this.name = 'QueryError';
  }
}

export const invalidArgument = (message: string) => new QueryError(status.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new QueryError(status.NOT_FOUND, message);
export const failedPrecondition = (message: string) => new QueryError(status.FAILED_PRECONDITION, message);
export const alreadyExists = (message: string) => new QueryError(status.ALREADY_EXISTS, message);
export const permissionDenied = (message: string) => new QueryError(status.PERMISSION_DENIED, message);

// A gRPC server wrapper with the same start/stop-with-grace shape as the HTTP listener.
import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

export interface GrpcService {
  readonly definition: ServiceDefinition;
  readonly implementation: UntypedServiceImplementation;
}

export interface RunningGrpcServer {
  readonly port: number;
  /** Refuse new calls, let running ones finish for up to `graceMs`, then cancel them. */
  close(graceMs: number): Promise<void>;
}

export async function startGrpcServer(
  services: readonly GrpcService[],
  port: number,
  host: string,
): Promise<RunningGrpcServer> {
  const server = new Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  for (const service of services) server.addService(service.definition, service.implementation);
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${host.includes(':') ? `[${host}]` : host}:${port}`,
      ServerCredentials.createInsecure(),
      (err, p) => (err ? reject(err) : resolve(p)),
    );
  });
  let closed: Promise<void> | undefined;
  return {
    port: bound,
    close(graceMs) {
      closed ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return closed;
    },
  };
}

// Shared app runtime: settings, logging, errors, health/readiness/metrics, draining HTTP, main.
export * from './closer.js';
export * from './config.js';
export * from './errors.js';
export * from './grpc.js';
export * from './health.js';
export * from './http-app.js';
export * from './http-server.js';
export * from './jetstream-streams.js';
export * from './json-input.js';
export * from './lifecycle.js';
export * from './logger.js';
export * from './metrics.js';
export * from './nats.js';
export * from './nats-background.js';
export * from './periodic.js';
export * from './service-token.js';
export * from './timeout.js';

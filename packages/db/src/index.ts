// Shared Postgres plumbing for the apps that own a schema.
export * from './database.js';
export * from './migrate.js';

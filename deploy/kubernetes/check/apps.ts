// What the checks know about each app: its workload and Service names, its settings schema (the
// zod schema of apps/*/src/config.ts, imported, so a new required setting is seen at once) and which
// settings hold its ports.
import { settingsSchema as controlPlaneSettings } from '@aigw/control-plane';
import { settingsSchema as gatewaySettings } from '@aigw/gateway';
import { settingsSchema as loggerSettings } from '@aigw/logger';
import type { z } from 'zod';

/** A settings schema: a zod object (possibly with refinements) whose shape lists every setting. */
export type SettingsSchema = z.ZodType & { shape: Record<string, z.ZodType> };

export interface AppSpec {
  readonly app: 'gateway' | 'control-plane' | 'logger';
  /** Deployment, Service, PDB, ConfigMap and Secret name. */
  readonly name: string;
  readonly settings: SettingsSchema;
  /** Setting of each named port: `http` always, `grpc` for apps with a gRPC service. */
  readonly ports: Readonly<Partial<Record<'http' | 'grpc', string>>>;
  /** The command of its migration Job, for an app that migrates before a rollout rather than at start. */
  readonly migrateCommand?: string;
  /** Whether the app owns database migrations at all (the gateway has no database). */
  readonly migrates: boolean;
}

export const APPS: readonly AppSpec[] = [
  {
    app: 'gateway',
    name: 'aigw-gateway',
    settings: gatewaySettings,
    ports: { http: 'PORT' },
    migrates: false,
  },
  {
    app: 'control-plane',
    name: 'aigw-control-plane',
    settings: controlPlaneSettings,
    ports: { http: 'PORT', grpc: 'GRPC_PORT' },
    migrateCommand: 'dist/migrate.js',
    migrates: true,
  },
  {
    app: 'logger',
    name: 'aigw-logger',
    settings: loggerSettings,
    ports: { http: 'PORT', grpc: 'GRPC_PORT' },
    migrates: true,
  },
];

/** Settings the app cannot start without: no default and not optional. */
export function requiredSettings(settings: SettingsSchema): string[] {
  return Object.entries(settings.shape)
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([name]) => name);
}

/** The default of a setting (its parse of "unset"), e.g. PORT -> 8787. */
export function settingDefault(settings: SettingsSchema, name: string): unknown {
  const field = settings.shape[name];
  const parsed = field?.safeParse(undefined);
  return parsed?.success ? parsed.data : undefined;
}

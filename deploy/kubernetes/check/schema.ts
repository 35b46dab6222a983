// Validates rendered objects against the Kubernetes JSON schemas pinned by the kubernetes-models
// package (its version is the catalog's): unknown fields, wrong types and missing required fields fail.
import type { K8sObject } from './render.js';

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

/** `apps/v1` -> `kubernetes-models/apps/v1`, `v1` -> `kubernetes-models/v1`. */
function modulePath(apiVersion: string): string {
  return `kubernetes-models/${apiVersion}`;
}

export interface SchemaResult {
  /** `Kind/name: message` for each object the schema rejects. */
  readonly errors: string[];
  /** Objects of an API kubernetes-models does not know (custom resources): checked by rules instead. */
  readonly unknown: K8sObject[];
}

/**
 * kustomize folds long base64 Secret values over several lines; the API server's decoder skips the
 * newlines, the schema's `byte` format does not.
 */
function secretDataUnwrapped(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || !object.data) return object;
  const data = Object.fromEntries(
    Object.entries(object.data as Record<string, string>).map(([k, v]) => [k, String(v).replace(/\s+/g, '')]),
  );
  return { ...object, data };
}

export async function validateSchemas(objects: readonly K8sObject[]): Promise<SchemaResult> {
  const errors: string[] = [];
  const unknown: K8sObject[] = [];
  for (const object of objects) {
    let Kind: ModelClass | undefined;
    try {
      const module = (await import(modulePath(object.apiVersion))) as Record<string, ModelClass>;
      Kind = module[object.kind];
    } catch {
      Kind = undefined;
    }
    if (!Kind) {
      unknown.push(object);
      continue;
    }
    try {
      new Kind(secretDataUnwrapped(object)).validate();
    } catch (err) {
      errors.push(
        `${object.kind}/${object.metadata?.name}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return { errors, unknown };
}

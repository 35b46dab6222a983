// Renders a kustomization with `kubectl kustomize` (offline) into plain objects.
import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object, loosely typed: the checks read it field by field. */
// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML; schema validation types them.
export type K8sObject = Record<string, any> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
};

/** True when a kubectl with kustomize is on PATH. */
export function kubectlAvailable(): boolean {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  return probe.status === 0;
}

/** `kubectl kustomize <dir>`, parsed; throws with kubectl's message when it fails. */
export function render(dir: string): K8sObject[] {
  const run = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0)
    throw new Error(`kubectl kustomize ${dir} failed: ${run.stderr || run.error?.message}`);
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(run.stdout)) {
    if (doc.errors.length > 0)
      throw new Error(`kubectl kustomize ${dir}: bad YAML: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as K8sObject | null;
    if (value) objects.push(value);
  }
  return objects;
}

// Whether this process started tracing: the apps ask before doing any per-request tracing work,
// so that with tracing off none is done.
let enabled = false;

export function telemetryEnabled(): boolean {
  return enabled;
}

export function markTelemetryEnabled(): void {
  enabled = true;
}

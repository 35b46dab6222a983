// The message of a thrown value, for log lines (never the value itself: it may carry a payload).
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// Fail-first bookkeeping: how many calls each scenario key has made while `failFirst` was active.
export class FailCounter {
  private readonly seen = new Map<string, number>();

  /** Count this call; true when it is among the first `failFirst` calls of its scenario. */
  shouldFail(scenario: string, failFirst: number): boolean {
    if (failFirst <= 0) return false;
    const before = this.seen.get(scenario) ?? 0;
    this.seen.set(scenario, before + 1);
    return before < failFirst;
  }

  reset(scenario?: string): void {
    if (scenario === undefined) this.seen.clear();
    else this.seen.delete(scenario);
  }
}

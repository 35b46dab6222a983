// Diagnosis only: `--require` this (through NODE_OPTIONS) into a process whose entry script path
// contains GC_TRACE_MATCH to append, every GC_TRACE_INTERVAL_S seconds (default 4), one line to
// GC_TRACE_DIR/<pid>.log: scavenges and major GCs in the interval with their main-thread pause
// time, the bytes old space grew by across scavenges (about what was promoted), the new space's
// size and old space's use. The background threads' share (concurrent marking, parallel
// scavenging, compilation) is not in these pauses: read it per thread from /proc/<pid>/task.
const match = process.env.GC_TRACE_MATCH;
const dir = process.env.GC_TRACE_DIR;
if (match && dir && (process.argv[1] ?? '').includes(match)) {
  const { PerformanceObserver, constants } = require('node:perf_hooks');
  const { getHeapSpaceStatistics } = require('node:v8');
  const { appendFileSync, mkdirSync } = require('node:fs');
  const { join } = require('node:path');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.log`);
  const mb = (bytes) => (bytes / 1e6).toFixed(1);
  let scavenges = 0;
  let scavengeMs = 0;
  let majors = 0;
  let majorMs = 0;
  let promoted = 0;
  let oldUsed = 0;
  let newSize = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = entry.detail?.kind;
      const spaces = getHeapSpaceStatistics();
      const old = spaces.find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;
      newSize = spaces.find((s) => s.space_name === 'new_space')?.space_size ?? 0;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        scavenges++;
        scavengeMs += entry.duration;
        if (oldUsed > 0 && old > oldUsed) promoted += old - oldUsed;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        majors++;
        majorMs += entry.duration;
      }
      oldUsed = old;
    }
  }).observe({ entryTypes: ['gc'] });
  setInterval(
    () => {
      appendFileSync(
        file,
        `${new Date().toISOString()} scavenges=${scavenges} (${scavengeMs.toFixed(0)} ms) majors=${majors} (${majorMs.toFixed(0)} ms) promoted=${mb(promoted)} MB new_space=${mb(newSize)} MB old_used=${mb(oldUsed)} MB\n`,
      );
      scavenges = scavengeMs = majors = majorMs = promoted = 0;
    },
    Number(process.env.GC_TRACE_INTERVAL_S ?? 4) * 1000,
  ).unref();
}

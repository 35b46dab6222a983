// Diagnosis only: `--require` this (through NODE_OPTIONS, like cpu-prof-preload.cjs) to sample the
// allocations of a process whose entry script path contains ALLOC_MATCH, written to
// ALLOC_DIR/<pid>.heapprofile; summarise it with alloc-summary.ts. Sampling starts ALLOC_START_S
// seconds after start (default 15: past the warm-up) and lasts ALLOC_DURATION_S (default 10), one
// sample per ALLOC_INTERVAL bytes on average (default 1024). By default every allocation counts,
// also what the next scavenge frees (the allocation volume: what makes scavenges frequent);
// ALLOC_PROMOTED=1 leaves out what scavenges freed, so what remains is what outlived the young
// generation (promoted, then freed by a major GC, or still alive): what makes major GCs frequent.
const match = process.env.ALLOC_MATCH;
const dir = process.env.ALLOC_DIR;
// ALLOC_MATCH may list several substrings, separated by `|`.
if (match && dir && match.split('|').some((m) => (process.argv[1] ?? '').includes(m))) {
  const inspector = require('node:inspector');
  const { mkdirSync, renameSync, writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const session = new inspector.Session();
  session.connect();
  const startMs = Number(process.env.ALLOC_START_S ?? 15) * 1000;
  const durationMs = Number(process.env.ALLOC_DURATION_S ?? 10) * 1000;
  const options = {
    samplingInterval: Number(process.env.ALLOC_INTERVAL ?? 1024),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.ALLOC_PROMOTED !== '1',
  };
  // ALLOC_ON_SIGNAL=1: sampling starts at one SIGUSR2 and stops at the next, written to
  // <pid>-<n>.heapprofile (per-request-profile.ts brackets a load step with them).
  if (process.env.ALLOC_ON_SIGNAL === '1') {
    let sampling = false;
    let written = 0;
    process.on('SIGUSR2', () => {
      if (!sampling) {
        sampling = true;
        session.post('HeapProfiler.startSampling', options);
        return;
      }
      sampling = false;
      session.post('HeapProfiler.stopSampling', (stopErr, result) => {
        if (stopErr) return;
        mkdirSync(dir, { recursive: true });
        written += 1;
        // Written whole under a temporary name first: a reader never sees half a profile.
        const file = join(dir, `${process.pid}-${written}.heapprofile`);
        writeFileSync(`${file}.partial`, JSON.stringify(result.profile));
        renameSync(`${file}.partial`, file);
      });
    });
  } else
    setTimeout(() => {
      session.post('HeapProfiler.startSampling', options, (err) => {
        if (err) return;
        setTimeout(() => {
          session.post('HeapProfiler.stopSampling', (stopErr, result) => {
            if (stopErr) return;
            mkdirSync(dir, { recursive: true });
            writeFileSync(join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
          });
        }, durationMs).unref();
      });
    }, startMs).unref();
}

// Diagnosis only: `--require` this (NODE_OPTIONS accepts it where it refuses --cpu-prof) to CPU-profile
// a process whose entry script path contains CPU_PROF_MATCH, like --cpu-prof (1 ms sampling), written
// to CPU_PROF_DIR/<pid>.cpuprofile when the process exits. Any other process is left alone.
const match = process.env.CPU_PROF_MATCH;
const dir = process.env.CPU_PROF_DIR;
// CPU_PROF_MATCH may list several substrings, separated by `|`.
if (match && dir && match.split('|').some((m) => (process.argv[1] ?? '').includes(m))) {
  const inspector = require('node:inspector');
  const { mkdirSync, renameSync, writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', {
    interval: Number(process.env.CPU_PROF_INTERVAL_US ?? 1000),
  });
  if (process.env.CPU_PROF_ON_SIGNAL === '1') {
    // Signal mode (per-request-profile.ts): one SIGUSR2 starts the profile, the next stops it and
    // writes <pid>-<n>.cpuprofile, so that it covers exactly one load step.
    let profiling = false;
    let written = 0;
    process.on('SIGUSR2', () => {
      profiling = !profiling;
      if (profiling) return session.post('Profiler.start');
      session.post('Profiler.stop', (err, result) => {
        if (err) return;
        mkdirSync(dir, { recursive: true });
        written += 1;
        // Written whole under a temporary name first: a reader never sees half a profile.
        const file = join(dir, `${process.pid}-${written}.cpuprofile`);
        writeFileSync(`${file}.partial`, JSON.stringify(result.profile));
        renameSync(`${file}.partial`, file);
      });
    });
  } else session.post('Profiler.start');
  if (process.env.CPU_PROF_ON_SIGNAL !== '1')
    process.on('exit', () => {
      // A session on the main thread answers synchronously, so this runs to the end before exit.
      session.post('Profiler.stop', (err, result) => {
        if (err) return;
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
      });
    });
}

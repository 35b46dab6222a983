// Diagnosis only: `--require` this (NODE_OPTIONS accepts it where it refuses --cpu-prof) to CPU-profile
// a process whose entry script path contains CPU_PROF_MATCH, like --cpu-prof (1 ms sampling), written
// to CPU_PROF_DIR/<pid>.cpuprofile when the process exits. Any other process is left alone.
const match = process.env.CPU_PROF_MATCH;
const dir = process.env.CPU_PROF_DIR;
if (match && dir && (process.argv[1] ?? '').includes(match)) {
  const inspector = require('node:inspector');
  const { mkdirSync, writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // A session on the main thread answers synchronously, so this runs to the end before exit.
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

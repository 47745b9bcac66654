// Preloaded (`node -r`) into every process the launcher starts. The launcher puts each child in
// its own process group so a terminal's Ctrl-C reaches only the launcher, which then stops apps
// before NATS and Postgres; the price is that a child outlives a launcher killed with SIGKILL.
// This closes that gap: once the parent is gone (the child was re-parented), the child gets
// SIGTERM, and SIGKILL if it is still there after the grace period.
// The watch runs outside the process because an orphan's main thread can hang for good: pino's
// exit flush retries writes to the dead launcher's pipe (EPIPE) in a synchronous loop. It is a
// small shell process (~1 MB), not a worker thread: a thread is a second V8 isolate, ~19 MB of
// every app's resident memory (docs/benchmarks.md, "Local platform"). The shell is this process's
// child in its process group, so the launcher's SIGKILL to the group takes it too, and it ends
// by itself within a second of this process.
'use strict';

const { spawn } = require('node:child_process');

const GRACE_SECONDS = 15;

// $1 the parent's pid, $2 the watched process's pid, $3 the grace in seconds. Reads the parent id
// from /proc once a second (builtins only: no fork but `sleep`); where there is no /proc, checks
// that the parent still exists instead. Once orphaned: SIGTERM, then SIGKILL after the grace
// unless the process is gone by then (checked every second, so a reused pid is never hit).
const WATCH = `
parent=$1 pid=$2 grace=$3
while kill -0 "$pid" 2>/dev/null; do
  if [ -d /proc/self ]; then
    ppid=
    while read -r key value; do
      if [ "$key" = PPid: ]; then ppid=$value; break; fi
    done < "/proc/$pid/status" 2>/dev/null
    [ "$ppid" = "$parent" ] || break
  else
    kill -0 "$parent" 2>/dev/null || break
  fi
  sleep 1
done
kill -0 "$pid" 2>/dev/null || exit 0
kill -TERM "$pid"
waited=0
while [ "$waited" -lt "$grace" ]; do
  sleep 1
  kill -0 "$pid" 2>/dev/null || exit 0
  waited=$((waited + 1))
done
kill -KILL "$pid" 2>/dev/null
exit 0
`;

if (process.ppid > 1) {
  const watcher = spawn(
    '/bin/sh',
    ['-c', WATCH, 'orphan-guard', String(process.ppid), String(process.pid), String(GRACE_SECONDS)],
    { stdio: 'ignore' },
  );
  watcher.on('error', () => undefined);
  // Never the reason a process stays alive (a migration script must still exit on its own).
  watcher.unref();
}

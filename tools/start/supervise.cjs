// Runs a non-Node server (nats-server) under a small Node parent so it gets the orphan guard:
//   node -r ./orphan-guard.cjs supervise.cjs <command> [args...]
// Signals are passed on; this process exits with the server.
'use strict';

const { spawn } = require('node:child_process');

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (err) => {
  console.error(`cannot run ${command}: ${err.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));

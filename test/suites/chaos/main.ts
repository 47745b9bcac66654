// `npm run chaos`: a longer chaos run than the CI slice, printing its summary; exit code 1 when it
// found a failure. CHAOS_SEED replays a run; CHAOS_MINUTES (default 5) sets how long the writer
// writes under kills; CHAOS_LANES (default 4) how many write side by side.
import { chaosOptions } from './options';
import { summarize } from './report';
import { runChaos } from './run';

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, not '${raw}'`);
  return value;
}

async function main(): Promise<void> {
  const opts = chaosOptions({
    durationMs: positive('CHAOS_MINUTES', 5) * 60_000,
    lanes: Math.round(positive('CHAOS_LANES', 4)),
    replicas: { gateway: 2, catalog: 2, webhooks: 2 },
    settleTimeoutMs: 180_000,
    log: (line) => console.log(line),
  });
  const report = await runChaos(opts);
  console.log(summarize(report).join('\n'));
  process.exitCode = report.failures.length === 0 ? 0 : 1;
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exitCode = 1;
});

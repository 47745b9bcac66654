// `npm run fuzz`: the full fuzz run (at least 50,000 requests, every operation and parameter of the
// OpenAPI document) against a platform it starts the way the e2e tests do, or against a running one.
//
//   FUZZ_SEED          the seed (default: a new one, printed); with FUZZ_CASE, replays cases of that run
//   FUZZ_CASE          case indices to replay alone (`17` or `17,230`; `-3` an edge case), each answer printed
//   FUZZ_REQUESTS      how many requests (default 50000)
//   FUZZ_CONCURRENCY   requests in flight (default 6)
//   FUZZ_API_URL, FUZZ_API_KEY, FUZZ_DATABASE_URL
//                      a running platform (its origin, an admin key, its database for the storage
//                      check) instead of starting one; start it with the settings of platform-env.ts
import { startE2E, type E2E } from '../../e2e/platform';
import { FUZZ_PLATFORM_ENV } from './platform-env';
import { newSeed } from './prng';
import { formatReport } from './report';
import { runFuzz } from './run';

async function main(): Promise<number> {
  const env = process.env;
  const seed = env.FUZZ_SEED || newSeed();
  const only = env.FUZZ_CASE ? env.FUZZ_CASE.split(',').map((s) => Number(s.trim())) : undefined;
  // Negative indices are the edge cases every run sends first (edges.ts).
  if (only?.some((n) => !Number.isInteger(n)))
    throw new Error(`FUZZ_CASE=${env.FUZZ_CASE} is not a list of case indices`);
  const requests = Number(env.FUZZ_REQUESTS || 50_000);
  console.log(`fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
  let e2e: E2E | undefined;
  let target: { origin: string; apiKey: string; databaseUrl?: string };
  if (env.FUZZ_API_URL) {
    if (!env.FUZZ_API_KEY) throw new Error('FUZZ_API_URL needs FUZZ_API_KEY (an admin key)');
    target = { origin: new URL(env.FUZZ_API_URL).origin, apiKey: env.FUZZ_API_KEY, databaseUrl: env.FUZZ_DATABASE_URL };
  } else {
    console.log('starting the platform…');
    e2e = await startE2E('fuzz', FUZZ_PLATFORM_ENV);
    target = {
      origin: new URL(e2e.platform.gatewayUrl).origin,
      apiKey: e2e.adminKey,
      databaseUrl: e2e.platform.databaseUrl,
    };
  }
  try {
    const report = await runFuzz({
      ...target,
      seed,
      requests,
      only,
      concurrency: Number(env.FUZZ_CONCURRENCY || 6),
      batchSize: 200,
      logs: e2e?.logs,
      log: (line) => console.log(line),
      trace: only ? (line) => console.log(line) : undefined,
    });
    console.log(formatReport(report, only ? 1_000 : 2));
    const complete = only || (report.operations.missing.length === 0 && report.parameters.missing.length === 0);
    return report.failures.length === 0 && complete ? 0 : 1;
  } finally {
    await e2e?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

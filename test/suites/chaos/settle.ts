import type { RunningPlatform } from '../../../tools/start';
import { probeGrpc, probeHttp } from '../../../tools/start/health';
import { canConnect } from '../../../tools/start/ports';
import type { TestReceiver } from '@pim/testing';
import type { Truth } from './truth';

/** What still kept the platform from settling when the time was up (empty: settled). */
export type Unsettled = string[];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replicas that do not answer their health check, and nats-server if it is down. */
export async function downProcesses(platform: RunningPlatform): Promise<string[]> {
  const down: string[] = [];
  const gateways = new Set(platform.gatewayUrls.map((u) => Number(new URL(u).port)));
  for (const replicas of Object.values(platform.replicas))
    for (const r of replicas) {
      const probe = gateways.has(r.port)
        ? await probeHttp(`http://127.0.0.1:${r.port}`)
        : await probeGrpc(`127.0.0.1:${r.port}`);
      if (!probe.ok) down.push(`${r.name} (${probe.reason})`);
    }
  const nats = new URL(platform.natsUrl);
  if (!(await canConnect(nats.hostname, Number(nats.port), 1_000))) down.push('nats');
  return down;
}

/**
 * Polls until the platform is quiet after the chaos: every process answers, every outbox is
 * drained, the fan-out recorded every event since `since`, no delivery, job or approval
 * application is left to do, and the receiver got nothing new for two seconds. Returns what was
 * still not so at `timeoutMs` (the checks then say what it cost), or at once what `gaveUp` says
 * (supervision stopped the platform: nothing will settle).
 */
export async function settle(
  platform: RunningPlatform,
  truth: Truth,
  receiver: TestReceiver,
  since: Date,
  timeoutMs: number,
  gaveUp: () => string | undefined,
): Promise<Unsettled> {
  const until = Date.now() + timeoutMs;
  let quietSince = Date.now();
  let received = receiver.requests.length;
  for (;;) {
    const stopped = gaveUp();
    if (stopped) return [`the platform was stopped: ${stopped.split('\n')[0]}`];
    const left: string[] = [];
    const down = await downProcesses(platform);
    if (down.length > 0) left.push(`not answering: ${down.join(', ')}`);
    const unpublished = await truth.unpublished().catch((e: Error) => ({ error: e.message }));
    if (Object.keys(unpublished).length > 0) left.push(`unpublished events: ${JSON.stringify(unpublished)}`);
    const events = await truth.events(since);
    const unrecorded = await truth.notInInbox(events.map((e) => e.id));
    if (unrecorded.length > 0) left.push(`events the fan-out has not recorded: ${unrecorded.length}`);
    const pending = await truth.pendingDeliveries();
    if (pending > 0) left.push(`deliveries pending: ${pending}`);
    const jobs = await truth.runningJobs();
    if (jobs > 0) left.push(`imports or exports running: ${jobs}`);
    const applications = await truth.pendingApplications();
    if (applications > 0) left.push(`approvals not applied yet: ${applications}`);
    if (receiver.requests.length !== received) {
      received = receiver.requests.length;
      quietSince = Date.now();
    }
    if (left.length === 0 && Date.now() - quietSince >= 2_000) return [];
    if (Date.now() > until) return left.length > 0 ? left : ['the receiver kept receiving'];
    await sleep(500);
  }
}

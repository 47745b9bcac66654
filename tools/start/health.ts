import {
  credentials,
  makeGenericClientConstructor,
  type Client,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type { AppSpec } from './app-spec';

type HealthClient = Client & {
  Check(
    req: { service: string },
    opts: { deadline: Date },
    cb: (err: ServiceError | null, res?: { status: string }) => void,
  ): void;
};

const HealthClientCtor = makeGenericClientConstructor(healthService as unknown as ServiceDefinition, 'Health');

/** The result of one probe: healthy, or why not. */
export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** Asks a gRPC server for the overall status (service '') of grpc.health.v1. */
export function probeGrpc(address: string, timeoutMs = 1000): Promise<ProbeResult> {
  const client = new HealthClientCtor(address, credentials.createInsecure()) as unknown as HealthClient;
  return new Promise<ProbeResult>((resolve) => {
    client.Check({ service: '' }, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => {
      if (err) resolve({ ok: false, reason: err.details || err.message });
      else if (res?.status === 'SERVING') resolve({ ok: true });
      else resolve({ ok: false, reason: `status ${res?.status ?? 'unknown'}` });
    });
  }).finally(() => client.close());
}

/** GET <baseUrl>/readyz; healthy on 200. */
export async function probeHttp(baseUrl: string, timeoutMs = 1000): Promise<ProbeResult> {
  try {
    const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.status === 200 ? { ok: true } : { ok: false, reason: `GET /readyz answered ${res.status}` };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { ok: false, reason: cause ?? (err as Error).message };
  }
}

/** Probes an app the way its kind says. */
export function probeApp(app: Pick<AppSpec, 'kind'>, port: number): Promise<ProbeResult> {
  return app.kind === 'grpc' ? probeGrpc(`127.0.0.1:${port}`) : probeHttp(`http://127.0.0.1:${port}`);
}

import { credentials, makeGenericClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { CHANNEL_OPTIONS } from './channel';

const HealthClient = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

type CheckFn = (
  req: { service: string },
  opts: { deadline: Date },
  cb: (err: ServiceError | null, res?: { status: string | number }) => void,
) => void;

/** A reusable grpc.health.v1 client for one address. */
export class HealthChecker {
  private readonly client: Client;

  constructor(address: string) {
    this.client = new HealthClient(address, credentials.createInsecure(), { ...CHANNEL_OPTIONS });
  }

  /** 'SERVING', 'NOT_SERVING', 'UNKNOWN' or 'UNREACHABLE' (no answer before the deadline). */
  check(service = '', deadlineMs = 1000): Promise<string> {
    return new Promise((resolve) => {
      (this.client as unknown as { Check: CheckFn }).Check(
        { service },
        { deadline: new Date(Date.now() + deadlineMs) },
        (err, res) => {
          if (err || !res) resolve('UNREACHABLE');
          else
            resolve(
              typeof res.status === 'number'
                ? (['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'][res.status] ?? 'UNKNOWN')
                : res.status,
            );
        },
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

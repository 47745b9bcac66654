import { performance } from 'node:perf_hooks';
import {
  ServerInterceptingCall,
  status,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Seconds: from a cache hit (1 ms) to a long stream (an export's download). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

const REQUESTS = 'pim_grpc_server_requests_total';
const DURATION = 'pim_grpc_server_request_duration_seconds';

/** The name of a gRPC status code (OK, NOT_FOUND...), or UNKNOWN for a number grpc-js does not know. */
export function grpcCodeName(code: number): string {
  return (status as unknown as Record<number, string>)[code] ?? 'UNKNOWN';
}

/**
 * Counts and times every call a gRPC server answers, by method (the full RPC name,
 * `pim.catalog.v1.ProductsService/GetProduct`: only methods the server registered, so the labels are
 * bounded) and status name. Every kind of call (unary, streams, health, reflection) goes through
 * the interceptor; a call the caller cancelled (or whose deadline passed) counts as CANCELLED or
 * DEADLINE_EXCEEDED.
 */
export class GrpcServerMetrics {
  readonly requests: Counter<'method' | 'code'>;
  readonly duration: Histogram<'method' | 'code'>;

  constructor(registry: Registry) {
    // One set per registry: a second server on the same registry shares them.
    this.requests =
      (registry.getSingleMetric(REQUESTS) as Counter<'method' | 'code'> | undefined) ??
      new Counter({
        name: REQUESTS,
        help: 'gRPC calls answered, by method and status code',
        labelNames: ['method', 'code'],
        registers: [registry],
      });
    this.duration =
      (registry.getSingleMetric(DURATION) as Histogram<'method' | 'code'> | undefined) ??
      new Histogram({
        name: DURATION,
        help: 'Time from a gRPC call arriving to its status being sent, by method and status code',
        labelNames: ['method', 'code'],
        buckets: DURATION_BUCKETS,
        registers: [registry],
      });
  }

  /** A grpc-js server interceptor that observes each call once, when its status is sent or it is cancelled. */
  interceptor(): ServerInterceptor {
    return (descriptor, call: ServerInterceptingCallInterface) => {
      const method = descriptor.path.replace(/^\//, '');
      const started = performance.now();
      let observed = false;
      const observe = (code: number): void => {
        if (observed) return;
        observed = true;
        const labels = { method, code: grpcCodeName(code) };
        this.requests.inc(labels);
        this.duration.observe(labels, (performance.now() - started) / 1000);
      };
      return new ServerInterceptingCall(call, {
        start: (next) =>
          next({
            // grpc-js ends a call past its deadline itself (not through the interceptors), then cancels it.
            onCancel: () => {
              const deadline = call.getDeadline();
              const due = deadline instanceof Date ? deadline.getTime() : Number(deadline);
              observe(Number.isFinite(due) && due <= Date.now() ? status.DEADLINE_EXCEEDED : status.CANCELLED);
            },
          }),
        sendStatus: (st, next) => {
          observe(st.code);
          next(st);
        },
      });
    };
  }
}

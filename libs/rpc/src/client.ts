import { credentials, type Client, type Metadata, type ServiceError, type CallOptions } from '@grpc/grpc-js';
import { fromGrpcError } from '@pim/errors';
import { CHANNEL_OPTIONS } from './channel';
import { callDeadline, callMetadata, endClientSpan, startClientSpan } from './tracing';

/** A generated client constructor (ts-proto `makeGenericClientConstructor` output). */
export type ClientCtor<C extends Client> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: Record<string, unknown>,
) => C;

type UnaryMethod<Req, Res> = (
  req: Req,
  md: Metadata,
  opts: Partial<CallOptions>,
  cb: (err: ServiceError | null, res: Res) => void,
) => unknown;

/** Methods of a client that are unary calls, turned into promises with deadlines, context and error mapping. */
export type PromiseClient<C> = {
  [K in keyof C as C[K] extends UnaryMethod<infer _Req, infer _Res> ? K : never]: C[K] extends UnaryMethod<
    infer Req,
    infer Res
  >
    ? (req: Req, opts?: { deadlineMs?: number }) => Promise<Res>
    : never;
};

/** Options of a client to one app. */
export interface RpcClientOptions {
  /** Name of the app called, used in error messages ("webhooks is unavailable"). */
  service: string;
  address: string;
  deadlineMs: number;
}

/**
 * A promise-based client: every call carries a deadline, the current request id and caller and
 * (tracing on) its client span's trace context, and failures come back as domain errors (a
 * transport failure is an UnavailableError).
 */
export function createRpcClient<C extends Client>(
  Ctor: ClientCtor<C>,
  opts: RpcClientOptions,
): PromiseClient<C> & { close(): void; raw: C } {
  const raw = new Ctor(opts.address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 32 * 1024 * 1024,
    ...CHANNEL_OPTIONS,
  });
  // The full RPC name of each method (`/pim.webhooks.v1.WebhooksService/GetWebhook`), for its span.
  const service = (Ctor as unknown as { service?: Record<string, { path?: string }> }).service ?? {};
  const proxy = new Proxy({} as Record<string | symbol, unknown>, {
    get(_t, prop) {
      if (prop === 'close') return () => raw.close();
      if (prop === 'raw') return raw;
      const method = (raw as unknown as Record<string | symbol, unknown>)[prop];
      if (typeof method !== 'function') return undefined;
      const path = service[String(prop)]?.path ?? `${opts.service}/${String(prop)}`;
      return (req: unknown, callOpts: { deadlineMs?: number } = {}) =>
        new Promise((resolve, reject) => {
          const span = startClientSpan(path, () => opts.address);
          const md = callMetadata(span, path);
          const deadline = callDeadline(callOpts.deadlineMs ?? opts.deadlineMs);
          (method as UnaryMethod<unknown, unknown>).call(raw, req, md, { deadline }, (err, res) => {
            endClientSpan(span, err);
            if (err) reject(fromGrpcError(err, opts.service));
            else resolve(res);
          });
        });
    },
  });
  return proxy as unknown as PromiseClient<C> & { close(): void; raw: C };
}

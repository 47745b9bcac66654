import {
  Metadata,
  status,
  type Client,
  type ClientReadableStream,
  type ClientWritableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromGrpcError } from '@pim/errors';
import { callDeadline, callMetadata, endClientSpan, startClientSpan } from './tracing';

/** The full RPC name of a generated client's method, for its span. */
function pathOf(client: Client, method: string, service: string): string {
  const def = (client.constructor as { service?: Record<string, { path?: string }> }).service;
  return def?.[method]?.path ?? `${service}/${method}`;
}

/** Where a client connects (`host:port`), for its spans. */
function clientAddress(client: Client): string {
  try {
    return client
      .getChannel()
      .getTarget()
      .replace(/^dns:(\/\/\/)?/, '');
  } catch {
    return '';
  }
}

/** An open client-streaming call: messages written with backpressure, then the answer. */
export interface ClientStreamCall<Req, Res> {
  /** Sends one message; resolves once the transport takes more (waits while its buffer is full). Rejects once the call failed. */
  write(message: Req): Promise<void>;
  /** Ends the caller's side and waits for the answer. */
  end(): Promise<Res>;
  /** Stops the call (the server sees it cancelled). */
  cancel(): void;
  /** The answer or the failure, as soon as the server gives it (possibly before `end`). */
  readonly done: Promise<Res>;
}

type ClientStreamMethod<Req, Res> = (
  md: Metadata,
  opts: { deadline: Date },
  cb: (err: ServiceError | null, res?: Res) => void,
) => ClientWritableStream<Req>;

type ServerStreamMethod<Req, Res> = (req: Req, md: Metadata, opts: { deadline: Date }) => ClientReadableStream<Res>;

/**
 * Opens a client-streaming call (`method` of a generated client) carrying the current request id
 * and caller, with a deadline; failures come back as domain errors, as for unary calls.
 */
export function openClientStream<Req, Res>(
  client: Client,
  method: string,
  opts: { service: string; deadlineMs: number },
): ClientStreamCall<Req, Res> {
  let settled = false;
  let failure: unknown;
  let call!: ClientWritableStream<Req>;
  const span = startClientSpan(pathOf(client, method, opts.service), () => clientAddress(client));
  const done = new Promise<Res>((resolve, reject) => {
    const fn = (client as unknown as Record<string, ClientStreamMethod<Req, Res>>)[method];
    call = fn.call(client, callMetadata(span), { deadline: callDeadline(opts.deadlineMs) }, (err, res) => {
      settled = true;
      endClientSpan(span, err);
      if (err) {
        failure = fromGrpcError(err, opts.service);
        reject(failure);
      } else resolve(res as Res);
    });
  });
  done.catch(() => undefined); // observed through write/end; never an unhandled rejection
  return {
    done,
    write: (message) =>
      new Promise<void>((resolve, reject) => {
        if (settled && failure) return reject(failure);
        if (call.write(message)) return resolve();
        const go = () => {
          call.off('drain', go);
          if (failure) reject(failure);
          else resolve();
        };
        call.on('drain', go);
        done.then(go, go);
      }),
    end: () => {
      call.end();
      return done;
    },
    cancel: () => call.cancel(),
  };
}

/**
 * Reads a server-streaming call (`method` of a generated client) as an async iterable, with the
 * current request id and caller and a deadline; a failure is thrown as a domain error. Leaving the
 * loop early cancels the call.
 */
export async function* readServerStream<Req, Res>(
  client: Client,
  method: string,
  request: Req,
  opts: { service: string; deadlineMs: number },
): AsyncGenerator<Res> {
  const fn = (client as unknown as Record<string, ServerStreamMethod<Req, Res>>)[method];
  const span = startClientSpan(pathOf(client, method, opts.service), () => clientAddress(client));
  const call = fn.call(client, request, callMetadata(span), {
    deadline: callDeadline(opts.deadlineMs),
  });
  let finished = false;
  try {
    for await (const message of call as AsyncIterable<Res>) yield message;
    finished = true;
    endClientSpan(span, null);
  } catch (err) {
    finished = true;
    const grpcError = (err as ServiceError).code !== undefined ? (err as ServiceError) : null;
    endClientSpan(span, grpcError ?? { code: status.UNKNOWN, details: String((err as Error)?.message ?? err) });
    throw grpcError ? fromGrpcError(grpcError, opts.service) : err;
  } finally {
    if (!finished) {
      call.cancel();
      endClientSpan(span, { code: status.CANCELLED, details: 'left early by the caller' });
    }
  }
}

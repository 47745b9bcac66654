import { randomUUID } from 'node:crypto';
import {
  Server,
  ServerCredentials,
  status,
  type handleClientStreamingCall,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type Metadata,
  type ServerReadableStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { HealthImplementation } from 'grpc-health-check';
import { ReflectionService } from '@grpc/reflection';
import type { Registry } from 'prom-client';
import { toGrpcError, toPimError } from '@pim/errors';
import { runWithContext, withSpan, type Logger, type RequestContext } from '@pim/logging';
import { idempotentService, type IdempotentCallLedger } from './idempotent-calls';
import { metadataToContext } from './metadata';
import { GrpcServerMetrics } from './metrics';
import { endServerSpan, startServerSpan } from './tracing';

/**
 * What a handler knows about the call beyond its request message: the request context, with the
 * call's deadline (when the caller stops waiting) if it set one.
 */
export type CallContext = RequestContext;

/**
 * Wraps a domain call as a grpc-js unary handler: context from metadata, errors mapped to
 * status + error object, one log line per failure at the error's level.
 */
export function unary<Req, Res>(
  logger: Logger,
  method: string,
  fn: (req: Req, ctx: CallContext) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    const ctx = contextOf(call);
    const span = startServerSpan(call);
    runWithContext(ctx, () =>
      withSpan(span, () => {
        fn(call.request, ctx).then(
          (res) => {
            callback(null, res);
            endServerSpan(span, status.OK);
          },
          (err: unknown) => {
            const pim = toPimError(err);
            const line = { method, err: pim.logLevel === 'error' ? err : undefined, code: pim.status, kind: pim.kind };
            logger[pim.logLevel](line, pim.logLevel === 'error' ? `${method} failed` : `${method}: ${pim.message}`);
            const grpcError = toGrpcError(pim);
            callback(grpcError as never, null);
            endServerSpan(span, grpcError.code ?? status.UNKNOWN, pim.message);
          },
        );
      }),
    );
  };
}

type Deadline = ReturnType<ServerUnaryCall<unknown, unknown>['getDeadline']>;

/** A call's deadline as a time, if it has one. */
const deadlineOf = (deadline: Deadline): Date | undefined =>
  deadline instanceof Date ? deadline : Number.isFinite(deadline) ? new Date(deadline as number) : undefined;

/** The request context of a call: from its metadata, with its deadline (what it commits must be in by then). */
function contextOf(call: { metadata: Metadata; getDeadline(): Deadline }): RequestContext {
  const ctx = metadataToContext(call.metadata, randomUUID);
  const deadline = deadlineOf(call.getDeadline());
  if (deadline) ctx.deadline = deadline;
  return ctx;
}

/** Thrown by `send` once the caller has gone, so the producer stops. */
export class StreamCancelledError extends Error {
  constructor(method: string) {
    super(`${method}: the caller cancelled the stream`);
  }
}

/**
 * Wraps a producer as a grpc-js server-streaming handler, with unary's context and error
 * mapping. `send` waits while the client's buffer is full (so a producer holds one batch at a
 * time) and throws StreamCancelledError once the caller has cancelled; the stream ends when the
 * producer resolves, or with the mapped error status when it fails.
 */
export function serverStream<Req, Res>(
  logger: Logger,
  method: string,
  fn: (req: Req, send: (res: Res) => Promise<void>, ctx: CallContext) => Promise<void>,
): handleServerStreamingCall<Req, Res> {
  return (call: ServerWritableStream<Req, Res>) => {
    const ctx = contextOf(call);
    const send = async (res: Res): Promise<void> => {
      if (call.cancelled) throw new StreamCancelledError(method);
      if (!call.write(res)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            call.off('drain', done);
            call.off('cancelled', done);
            resolve();
          };
          call.on('drain', done);
          call.on('cancelled', done);
        });
      }
      if (call.cancelled) throw new StreamCancelledError(method);
    };
    const span = startServerSpan(call);
    runWithContext(ctx, () =>
      withSpan(span, () => {
        fn(call.request, send, ctx).then(
          () => {
            call.end();
            endServerSpan(span, status.OK);
          },
          (err: unknown) => {
            if (err instanceof StreamCancelledError || call.cancelled) {
              logger.info({ method }, `${method}: cancelled by the caller`);
              endServerSpan(span, status.CANCELLED);
              return;
            }
            const pim = toPimError(err);
            const line = { method, err: pim.logLevel === 'error' ? err : undefined, code: pim.status, kind: pim.kind };
            logger[pim.logLevel](line, pim.logLevel === 'error' ? `${method} failed` : `${method}: ${pim.message}`);
            const grpcError = toGrpcError(pim);
            call.emit('error', grpcError);
            endServerSpan(span, grpcError.code ?? status.UNKNOWN, pim.message);
          },
        );
      }),
    );
  };
}

/** One service a gRPC app serves. */
export interface ServiceRegistration {
  /** Fully qualified name, e.g. "pim.webhooks.v1.WebhooksService" (health reports it). */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

/** How a gRPC app starts. */
export interface GrpcAppOptions {
  logger: Logger;
  services: ServiceRegistration[];
  /** Root folder and files of the .proto sources, for reflection. */
  protoRoot: string;
  protoFiles: string[];
  shutdownGraceMs?: number;
  /** The app's Prometheus registry: every call is counted and timed on it (`pim_grpc_server_*`). */
  metrics?: Registry;
  /**
   * Where the app records calls carrying an idempotency token: given, a retried call is answered
   * from its first run (`idempotentService`).
   */
  idempotentCalls?: IdempotentCallLedger;
}

/** How long a caller's connection lives before the server asks it to reconnect (grpc-js adds jitter). */
export const MAX_CONNECTION_AGE_MS = 5 * 60_000;
/** How long calls in flight (an export's download) may go on on a connection asked to close. */
export const MAX_CONNECTION_AGE_GRACE_MS = 30 * 60_000;

/**
 * A package definition as reflection reads it: only the encoded .proto files. proto-loader gives
 * every message and enum the encodings of every file, and @grpc/reflection decodes them once per
 * type (v1 and v1alpha each): ~115 MB of short-lived objects when the catalog starts, against
 * ~1 MB once each file is there once. The same files, so the same answers.
 */
export function reflectedFiles(pkg: PackageDefinition): PackageDefinition {
  const files = new Set<Buffer>();
  for (const definition of Object.values(pkg)) {
    // Messages and enums carry the files; a service's entries are its methods.
    const protos = (definition as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    if (Array.isArray(protos)) for (const file of protos as Buffer[]) files.add(file);
  }
  return {
    files: { format: 'Protocol Buffer 3 EnumDescriptorProto', type: {}, fileDescriptorProtos: [...files] },
  };
}

/** A grpc-js server with health, reflection, call metrics and graceful shutdown. */
export class GrpcApp {
  private readonly server: Server;
  private readonly health: HealthImplementation;
  private port = 0;

  constructor(private readonly opts: GrpcAppOptions) {
    this.server = new Server({
      'grpc.max_receive_message_length': 32 * 1024 * 1024,
      // Callers reconnect every few minutes (calls in flight finish on the old connection), and
      // resolve the name again then: replicas added since take their share of the calls.
      'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
      'grpc.max_connection_age_grace_ms': MAX_CONNECTION_AGE_GRACE_MS,
      interceptors: opts.metrics ? [new GrpcServerMetrics(opts.metrics).interceptor()] : [],
    });
    const statuses = Object.fromEntries([['', 'NOT_SERVING'], ...opts.services.map((s) => [s.name, 'NOT_SERVING'])]);
    this.health = new HealthImplementation(statuses);
    this.health.addToServer(this.server);
    const pkg = loadSync(opts.protoFiles, {
      includeDirs: [opts.protoRoot],
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    new ReflectionService(reflectedFiles(pkg)).addToServer(this.server);
    const ledger = opts.idempotentCalls;
    for (const s of opts.services) {
      this.server.addService(
        s.definition,
        ledger ? idempotentService(s.definition, s.implementation, ledger, opts.logger) : s.implementation,
      );
    }
  }

  /** Binds to host:port (0 = any free port) and marks every service SERVING; returns the port. */
  async listen(port: number, host = '0.0.0.0'): Promise<number> {
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, bound) =>
        err ? reject(err) : resolve(bound),
      ),
    );
    this.setServing(true);
    this.opts.logger.info({ port: this.port }, 'gRPC server listening');
    return this.port;
  }

  /** Reports every service (and the server as a whole) as serving or not. */
  setServing(serving: boolean): void {
    const s = serving ? 'SERVING' : 'NOT_SERVING';
    this.health.setStatus('', s);
    for (const svc of this.opts.services) this.health.setStatus(svc.name, s);
  }

  /** Stops taking calls (health first), lets running calls finish within the grace period, then forces. */
  async shutdown(): Promise<void> {
    this.setServing(false);
    const grace = this.opts.shutdownGraceMs ?? 10_000;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, grace);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** A handler for a method the service declares but this version does not implement. */
export function unimplemented(method: string): handleUnaryCall<unknown, unknown> {
  return (_call, callback) =>
    callback({ code: status.UNIMPLEMENTED, details: `${method} is not implemented` } as never, null);
}

/**
 * Wraps a consumer as a grpc-js client-streaming handler (an upload), with unary's context and
 * error mapping. `fn` reads the caller's messages as an async iterable, which waits for the next
 * message (grpc-js pauses the caller while nobody reads) and ends when the caller ends its side.
 * An error answered before the caller has finished sending ends the call at once.
 */
export function clientStream<Req, Res>(
  logger: Logger,
  method: string,
  fn: (messages: AsyncIterable<Req>, ctx: CallContext) => Promise<Res>,
): handleClientStreamingCall<Req, Res> {
  return (call: ServerReadableStream<Req, Res>, callback: sendUnaryData<Res>) => {
    const ctx = contextOf(call);
    const span = startServerSpan(call);
    runWithContext(ctx, () =>
      withSpan(span, () => {
        fn(call as AsyncIterable<Req>, ctx).then(
          (res) => {
            callback(null, res);
            endServerSpan(span, status.OK);
          },
          (err: unknown) => {
            if (call.cancelled) {
              logger.info({ method }, `${method}: cancelled by the caller`);
              endServerSpan(span, status.CANCELLED);
              return;
            }
            const pim = toPimError(err);
            const line = { method, err: pim.logLevel === 'error' ? err : undefined, code: pim.status, kind: pim.kind };
            logger[pim.logLevel](line, pim.logLevel === 'error' ? `${method} failed` : `${method}: ${pim.message}`);
            const grpcError = toGrpcError(pim);
            callback(grpcError as never, null);
            endServerSpan(span, grpcError.code ?? status.UNKNOWN, pim.message);
          },
        );
      }),
    );
  };
}

import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import {
  PimError,
  UnavailableError,
  InternalError,
  fromErrorObject,
  toPimError,
  type ErrorKind,
  type WireErrorObject,
} from './errors';

/** Trailing metadata key that carries the JSON error object across gRPC. */
export const ERROR_METADATA_KEY = 'pim-error-bin';
const RETRY_AFTER_KEY = 'pim-retry-after';

function grpcCodeFor(kind: ErrorKind): GrpcStatus {
  switch (kind) {
    case 'validation':
      return GrpcStatus.INVALID_ARGUMENT;
    case 'authentication':
      return GrpcStatus.UNAUTHENTICATED;
    case 'authorization':
      return GrpcStatus.PERMISSION_DENIED;
    case 'not_found':
    case 'gone':
      return GrpcStatus.NOT_FOUND;
    case 'conflict':
      return GrpcStatus.ALREADY_EXISTS;
    case 'method_not_allowed':
      return GrpcStatus.UNIMPLEMENTED;
    case 'precondition':
      return GrpcStatus.FAILED_PRECONDITION;
    case 'payload_too_large':
    case 'headers_too_large':
    case 'rate_limit':
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case 'request_timeout':
      return GrpcStatus.DEADLINE_EXCEEDED;
    case 'unsupported_media_type':
      return GrpcStatus.INVALID_ARGUMENT;
    case 'internal':
      return GrpcStatus.INTERNAL;
    case 'unavailable':
      return GrpcStatus.UNAVAILABLE;
    default:
      return assertUnreachable(kind);
  }
}

function assertUnreachable(x: never): never {
  throw new Error(`unhandled error kind ${String(x)}`);
}

/** A gRPC status object (for a handler's callback) carrying the error object in metadata. */
export function toGrpcError(err: unknown): Partial<ServiceError> {
  const pim = toPimError(err);
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(pim.toWire()), 'utf8'));
  if (pim.retryAfter !== undefined) metadata.set(RETRY_AFTER_KEY, String(pim.retryAfter));
  return { code: grpcCodeFor(pim.kind), details: pim.message, metadata, name: pim.name, message: pim.message };
}

/** The PimError a failed gRPC call stands for, naming the service when the failure was transport. */
export function fromGrpcError(err: unknown, service = 'a dependency'): PimError {
  if (err instanceof PimError) return err;
  const se = err as Partial<ServiceError>;
  const raw = se?.metadata?.get(ERROR_METADATA_KEY)?.[0];
  if (raw !== undefined) {
    try {
      const obj = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw)) as WireErrorObject;
      const retry = se.metadata?.get(RETRY_AFTER_KEY)?.[0];
      return fromErrorObject(obj, retry === undefined ? undefined : Number(retry));
    } catch {
      // fall through to the status code
    }
  }
  switch (se?.code) {
    case GrpcStatus.UNAVAILABLE:
      return new UnavailableError(`${service} is unavailable`, { retryAfter: 5, cause: err });
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new UnavailableError(`${service} did not answer in time`, {
        retryAfter: 5,
        title: 'Dependency timed out',
        cause: err,
      });
    case GrpcStatus.CANCELLED:
      return new UnavailableError(`the call to ${service} was cancelled`, { retryAfter: 1, cause: err });
    default:
      return new InternalError('An unexpected error occurred', { cause: err });
  }
}

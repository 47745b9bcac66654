export {
  AuthenticationError,
  AuthorizationError,
  ConflictError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  HeadersTooLargeError,
  RequestTimeoutError,
  PimError,
  PreconditionFailedError,
  GoneError,
  RateLimitError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  errorClasses,
  fromErrorObject,
  underField,
  toPimError,
  writtenErrorObject,
  ERROR_OBJECT_LIMITS,
  type ErrorDetail,
  type ErrorKind,
  type ErrorLogLevel,
  type ErrorName,
  type ErrorObject,
  type PimErrorOptions,
  type WireErrorObject,
} from './errors';
export { ERROR_METADATA_KEY, fromGrpcError, toGrpcError } from './grpc';
export { linkQuery, plainLinkWriter, withLinks, writeLinks, type ApiLink, type LinkWriter } from './links';
export { fromZodError } from './zod';
export { stateConflict } from './states';

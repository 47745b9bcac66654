export {
  ACTOR_KEY,
  callTokenOf,
  contextToMetadata,
  IDEMPOTENCY_TOKEN_KEY,
  metadataToContext,
  nextCallToken,
  REQUEST_ID_KEY,
} from './metadata';
export { ANSWER_WAIT_MS, answerLostError, idempotentService, type IdempotentCallLedger } from './idempotent-calls';
export {
  clientStream,
  GrpcApp,
  serverStream,
  StreamCancelledError,
  unary,
  unimplemented,
  type CallContext,
  type GrpcAppOptions,
  type ServiceRegistration,
} from './server';
export { GrpcServerMetrics, grpcCodeName } from './metrics';
export { createRpcClient, type ClientCtor, type PromiseClient, type RpcClientOptions } from './client';
export { openClientStream, readServerStream, type ClientStreamCall } from './streams';
export { HealthChecker } from './health';
export { fromProtoListQuery, toProtoListQuery } from './list-query';
export { recordClient, type RecordClient, type RecordServiceNames, type ServiceDefinitionLike } from './record.client';
export { CHANNEL_OPTIONS, targetHostPort } from './channel';

import type { handleUnaryCall } from '@grpc/grpc-js';
import type { common } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import { fromProtoListQuery, unary } from '@pim/rpc';
import type { RecordEntity } from './record.entity';
import type { RecordView } from './record.resource';
import type { RecordService } from './record.service';

/** How one resource's views and inputs cross gRPC, on the owner's side (the gateway has the mirror image). */
export interface MessageCodec<V, M, In> {
  /** View → proto message (`_id` travels as `id`). */
  toMessage(view: V): M;
  /** Proto input → the plain object the service validates. */
  fromInput(input: In | undefined): Record<string, unknown>;
}

/** View → message for a resource whose message mirrors the view field by field (`_id` → `id`). */
export function viewToMessage<V extends { _id: string }>(view: V): Omit<V, '_id'> & { id: string } {
  const { _id, ...rest } = view;
  return { id: _id, ...rest };
}

/** The codec of a resource whose message and input mirror the REST shapes exactly. */
export function mirrorCodec<
  V extends { _id: string },
  M extends Omit<V, '_id'> & { id: string },
  In extends object,
>(): MessageCodec<V, M, In> {
  return {
    toMessage: (view) => viewToMessage(view) as M,
    fromInput: (input) => ({ ...(input ?? {}) }),
  };
}

/** `{_id, …}` elements of a REST list → `{id, …}` elements of a proto list. */
export function idsOut<T extends { _id: string }>(items: T[]): (Omit<T, '_id'> & { id: string })[] {
  return items.map((item) => viewToMessage(item));
}

/** `{id, …}` elements of a proto list → `{_id, …}` elements of a REST list. */
export function idsIn<T extends { id: string }>(items: T[] | undefined): (Omit<T, 'id'> & { _id: string })[] {
  return (items ?? []).map(({ id, ...rest }) => ({ _id: id, ...rest }));
}

/** The seven handlers of a record service, typed by its message (M), input (In) and BatchGet request (B). */
export interface RecordHandlers<M, In, B> {
  create: handleUnaryCall<{ input?: In }, { data: M }>;
  get: handleUnaryCall<{ id: string }, { data: M }>;
  update: handleUnaryCall<{ id: string; input?: In; expected_version?: number }, { data: M }>;
  patch: handleUnaryCall<{ id: string; patch?: Record<string, unknown>; expected_version?: number }, { data: M }>;
  delete: handleUnaryCall<{ id: string; expected_version?: number }, { data: M }>;
  list: handleUnaryCall<{ query?: common.ListQuery }, { data: M[]; page_info: common.PageInfo }>;
  batchGet: handleUnaryCall<B, { data: M[] }>;
}

/**
 * Decode, call the service, encode — for the seven RPCs every record service has. `names` gives
 * the RPC names for logs (`Brand`/`Brands` → CreateBrand, ListBrands...); `handlesOf` reads the
 * handles a BatchGet asks for (`codes`, `keys`).
 */
export function recordHandlers<E extends RecordEntity, V extends RecordView, I, M, In, B extends { ids: string[] }>(
  service: RecordService<E, V, I>,
  codec: MessageCodec<V, M, In>,
  logger: Logger,
  names: { one: string; many: string },
  handlesOf: (req: B) => string[],
): RecordHandlers<M, In, B> {
  const { one, many } = names;
  const encode = (v: V) => ({ data: codec.toMessage(v) });
  return {
    create: unary(logger, `Create${one}`, async (req) => encode(await service.create(codec.fromInput(req.input)))),
    get: unary(logger, `Get${one}`, async (req) => encode(await service.get(req.id))),
    update: unary(logger, `Update${one}`, async (req) =>
      encode(await service.replace(req.id, codec.fromInput(req.input), req.expected_version)),
    ),
    patch: unary(logger, `Patch${one}`, async (req) =>
      encode(await service.patch(req.id, req.patch ?? {}, req.expected_version)),
    ),
    delete: unary(logger, `Delete${one}`, async (req) => encode(await service.remove(req.id, req.expected_version))),
    list: unary(logger, `List${many}`, async (req) => {
      const r = await service.list(fromProtoListQuery(req.query));
      return { data: r.data.map((v) => codec.toMessage(v)), page_info: { total: r.total } };
    }),
    batchGet: unary(logger, `BatchGet${many}`, async (req) => ({
      data: (await service.batchGet(req.ids ?? [], handlesOf(req))).map((v) => codec.toMessage(v)),
    })),
  };
}

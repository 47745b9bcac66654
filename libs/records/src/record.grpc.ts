import type { handleServerStreamingCall, handleUnaryCall } from '@grpc/grpc-js';
import type { common } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import type { Logger } from '@pim/logging';
import { fromProtoListQuery, serverStream, unary } from '@pim/rpc';
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

/** Records per message of a Scan RPC unless the caller asks otherwise, and the most it may ask. */
const SCAN_BATCH_DEFAULT = 500;
const SCAN_BATCH_MAX = 1_000;

/** The batch size a Scan RPC asked for (absent: the default); outside 1 to SCAN_BATCH_MAX a 400. */
function batchSizeOf(requested: number | undefined): number {
  if (requested === undefined) return SCAN_BATCH_DEFAULT;
  if (!Number.isInteger(requested) || requested < 1 || requested > SCAN_BATCH_MAX) {
    throw new ValidationError(`batch_size must be a whole number from 1 to ${SCAN_BATCH_MAX}, got ${requested}`, {
      details: [{ field: 'batch_size', message: `must be 1 to ${SCAN_BATCH_MAX}` }],
    });
  }
  return requested;
}

/**
 * The handlers of a record service, typed by its message (M), input (In) and BatchGet request (B):
 * the seven RPCs every record service has, and `scan` for one that also streams its records.
 */
export interface RecordHandlers<M, In, B> {
  create: handleUnaryCall<{ input?: In }, { data: M }>;
  get: handleUnaryCall<{ id: string }, { data: M }>;
  update: handleUnaryCall<{ id: string; input?: In; expected_version?: number }, { data: M }>;
  patch: handleUnaryCall<{ id: string; patch?: Record<string, unknown>; expected_version?: number }, { data: M }>;
  delete: handleUnaryCall<{ id: string; expected_version?: number }, { data: M }>;
  list: handleUnaryCall<{ query?: common.ListQuery }, { data: M[]; page_info: common.PageInfo }>;
  batchGet: handleUnaryCall<B, { data: M[] }>;
  scan: handleServerStreamingCall<{ query?: common.ListQuery; batch_size?: number; omit?: string[] }, { data: M[] }>;
}

/**
 * Decode, call the service, encode — for the seven RPCs every record service has, and Scan (every
 * record matching the query's filters and search, in id order, `batch_size` a message: see
 * RecordService.scan). `names` gives the RPC names for logs (`Brand`/`Brands` → CreateBrand,
 * ListBrands, ScanBrands...); `handlesOf` reads the handles a BatchGet asks for (`codes`, `keys`).
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
    scan: serverStream(logger, `Scan${many}`, async (req, send) => {
      const size = batchSizeOf(req.batch_size);
      const { filters, search } = fromProtoListQuery(req.query);
      for await (const batch of service.scan({ filters, search }, size, { omit: req.omit ?? [] }))
        await send({ data: batch.map((v) => codec.toMessage(v)) });
    }),
  };
}

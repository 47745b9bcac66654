import type { Client } from '@grpc/grpc-js';
import { PROTO_FILES, PROTO_ROOT, products, relations, type common } from '@pim/contracts';
import { IdempotentCallStore } from '@pim/db';
import { createLogger } from '@pim/logging';
import { GrpcApp, createRpcClient, readServerStream } from '@pim/rpc';
import { catalogTestContext, type CatalogTestContext } from './catalog.context';
import { productsGrpc } from '../products.module';
import { relationsGrpc } from '../relations.module';

const logger = createLogger({ service: 'catalog-grpc-test', level: 'silent' });
const CALL = { service: 'catalog', deadlineMs: 30_000 };

/** A catalog test context whose products and relations answer over a real gRPC server, with clients as other apps have them. */
export interface CatalogGrpcContext {
  ctx: CatalogTestContext;
  address: string;
  products: ReturnType<typeof createRpcClient<products.ProductsServiceClient>>;
  relations: ReturnType<typeof createRpcClient<relations.ProductRelationsServiceClient>>;
  close(): Promise<void>;
}

/** Builds the context for one test file: its own database, a server on a free port, a client of each service. */
export async function catalogGrpcContext(): Promise<CatalogGrpcContext> {
  const ctx = await catalogTestContext();
  const app = new GrpcApp({
    logger,
    services: [...productsGrpc(ctx.services, logger), ...relationsGrpc(ctx.services, logger)],
    protoRoot: PROTO_ROOT,
    protoFiles: [PROTO_FILES.products, PROTO_FILES.relations],
    shutdownGraceMs: 2000,
    idempotentCalls: new IdempotentCallStore(ctx.ds),
  });
  const address = `127.0.0.1:${await app.listen(0, '127.0.0.1')}`;
  const client = { ...CALL, address };
  const productsClient = createRpcClient(products.ProductsServiceClient, client);
  const relationsClient = createRpcClient(relations.ProductRelationsServiceClient, client);
  return {
    ctx,
    address,
    products: productsClient,
    relations: relationsClient,
    async close() {
      productsClient.close();
      relationsClient.close();
      await app.shutdown();
      await ctx.close();
    },
  };
}

/** Every message of a server stream (`method` of a raw client), or the domain error it ended with. */
export async function streamed<Req, Res>(client: Client, method: string, request: Req): Promise<Res[]> {
  const out: Res[] = [];
  for await (const message of readServerStream<Req, Res>(client, method, request, CALL)) out.push(message);
  return out;
}

/** A list query as the proto carries it: no filters, search or sort unless given (scans ignore the window). */
export const listQuery = (q: Partial<common.ListQuery> = {}): common.ListQuery => ({
  page: 1,
  limit: 25,
  skip: 0,
  sort: [],
  filters: [],
  expand: [],
  search: '',
  ...q,
});

import { orders as pb } from '@pim/contracts';
import { createRpcClient } from '@pim/rpc';

/** What the workflow app asks the orders app: how many open orders follow a workflow. */
export interface OrdersLink {
  /** Live orders not final that follow the workflow. An orders app that does not answer is a 503. */
  openOrders(workflowId: string): Promise<number>;
  close(): void;
}

const DEADLINE_MS = 3_000;

/** The orders app's OrdersService at `address` (`host:port`), connected on first use. */
export function ordersLink(address: string): OrdersLink {
  let client: ReturnType<typeof createRpcClient<pb.OrdersServiceClient>> | undefined;
  const orders = () =>
    (client ??= createRpcClient(pb.OrdersServiceClient, { service: 'orders', address, deadlineMs: DEADLINE_MS }));
  return {
    openOrders: async (workflowId) => (await orders().countOpenOrders({ workflow_id: workflowId })).count,
    close: () => client?.close(),
  };
}

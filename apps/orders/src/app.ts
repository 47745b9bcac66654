import type { AppSpec } from '@pim/app';
import { RecordService } from '@pim/records';
import { ORDERS_STORE } from './orders.records';
import { PROTO_FILES } from '@pim/contracts';
import { readConfig, type OrdersConfig } from './config';
import { dataSourceOptions } from './data-source';
import { orderRecord } from './order/order.resource';
import { ordersGrpc } from './order/order.grpc';
import { OrderActions } from './order/order.actions';
import { OrderBulkUpsert } from './order/order.bulk';
import { onceEach, workflowsLink } from './links/workflows.link';

/** The orders app as the bootstrap runs it: orders on the record engine, their moves, appends and bulk upsert. */
export const ordersApp: AppSpec<OrdersConfig> = {
  name: 'orders',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  grpc: { port: (c) => c.ORDERS_GRPC_PORT, protoFiles: [PROTO_FILES.orders] },
  metricsPort: (c) => c.ORDERS_METRICS_PORT,
  wire: ({ ds, logger, config }) => {
    // Workflows live in the workflow app: a new order copies the one it names (or the default).
    const workflows = workflowsLink(config.WORKFLOW_GRPC_URL);
    const orders = new RecordService(ds, orderRecord(workflows), ORDERS_STORE);
    return {
      services: [
        ordersGrpc(
          orders,
          new OrderActions(orders, ds),
          new OrderBulkUpsert(() => new RecordService(ds, orderRecord(onceEach(workflows)), ORDERS_STORE)),
          logger,
        ),
      ],
      close: [() => workflows.close()],
    };
  },
};

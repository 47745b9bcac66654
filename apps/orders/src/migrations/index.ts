import { CreateOrders1795554110078 } from './1795554110078-create-orders';
import { CreateOrdersTable1795554119239 } from './1795554119239-create-orders-table';
import { OrdersChannelOverdue1795560600000 } from './1795560600000-orders-channel-overdue';
import { OutboxDeadLetters1795800000000 } from './1795800000000-outbox-dead-letters';
import { IdempotentCalls1795900000000 } from './1795900000000-idempotent-calls';
import { OrderWorkflowRequired1796100000000 } from './1796100000000-order-workflow-required';

/** Every migration of the orders schema, oldest first. */
export const migrations = [
  CreateOrders1795554110078,
  CreateOrdersTable1795554119239,
  OrdersChannelOverdue1795560600000,
  OutboxDeadLetters1795800000000,
  IdempotentCalls1795900000000,
  OrderWorkflowRequired1796100000000,
];

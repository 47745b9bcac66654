import { PROTO_FILES } from '@pim/contracts';
import { Order } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { OrderEntity } from '../entities/order.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('orders contract: declaration, entity and proto messages', () => {
  it('Order agrees with OrderEntity and pim.orders.v1.Order / OrderInput', () => {
    expect(
      contractProblems({
        declaration: Order,
        entity: OrderEntity,
        protoFile: PROTO_FILES.orders,
        message: 'pim.orders.v1.Order',
        inputMessage: 'pim.orders.v1.OrderInput',
      }),
    ).toEqual([]);
  });
});

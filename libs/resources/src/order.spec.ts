import { orders as pb } from '@pim/contracts';
import { orderFromWire, orderToWire } from './order';

describe('orders between the API and proto', () => {
  it("sends a customer's address without coordinates as an empty list, which proto can encode", () => {
    const wire = orderToWire({ customer: { _id: '6740a1b2c3d4e5f601234567', address: { zipcode: '01001-000' } } });
    expect(wire.customer).toEqual({
      id: '6740a1b2c3d4e5f601234567',
      address: { zipcode: '01001-000', coordinates: [] },
    });
    expect(() => pb.OrderCustomer.encode(wire.customer as pb.OrderCustomer)).not.toThrow();
  });

  it('keeps given coordinates, and leaves empty ones out of the API shape', () => {
    const given = { customer: { address: { city: 'Recife', coordinates: [-34.9, -8.05] } } };
    expect(orderToWire(given)).toEqual(given);
    expect(orderFromWire({ customer: { id: 'x', address: { city: 'Recife', coordinates: [] } } })).toEqual({
      customer: { _id: 'x', address: { city: 'Recife' } },
    });
    expect(orderFromWire(given)).toEqual(given);
  });
});

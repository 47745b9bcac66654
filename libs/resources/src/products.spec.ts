import { productSchemas } from './products';

describe('product input', () => {
  it('refuses a variation type outside ProductTypeEnum and a product without a name', () => {
    const r = productSchemas.input.safeParse({ code: 'x', name: {}, type: 'bundle' });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['name', 'type']);
  });
});

import { getMetadataArgsStorage } from 'typeorm';
import { z } from 'zod';
import { defineResource, field } from '@pim/resources';
import { columnOptions, declaredEntity } from './record.columns';
import { RecordEntity } from './record.entity';

const Counted = defineResource({
  collection: 'product_relations',
  schemaId: 'CountedThing',
  description: 'Counted thing',
  fields: {
    sequence: field.of('number', { input: z.number().int().min(0) }).default(0),
    weight: field.of('number', { input: z.number().min(0) }),
    items: field.of('array', { input: z.array(z.string()).min(1) }).stored(false),
  },
});

class CountedEntity extends declaredEntity(Counted, RecordEntity) {}

describe('declared columns', () => {
  it('stores whole numbers in an integer column and other numbers in double precision', () => {
    expect(columnOptions(Counted.fields.sequence)).toEqual({ type: 'integer', default: 0 });
    expect(columnOptions(Counted.fields.weight)).toEqual({ type: 'double precision', nullable: true });
  });

  it('declares no column for a field kept in a column of the owner', () => {
    const declared = getMetadataArgsStorage()
      .columns.filter((c) => c.target === Object.getPrototypeOf(CountedEntity))
      .map((c) => c.propertyName);
    expect(declared.sort()).toEqual(['sequence', 'weight']);
  });
});

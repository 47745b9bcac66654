import { PROTO_FILES } from '@pim/contracts';
import { AttributeOption } from '@pim/resources';
import { contractProblems, recordRpcs, rpcsOf } from '@pim/testing';
import { AttributeOptionEntity } from '../entities/attribute-option.entity';

// The attribute option is declared once (libs/resources); its table and its messages must agree
// with the declaration in names, types and optionality.
describe('attribute options contract: declaration, entity and proto messages', () => {
  it('AttributeOption agrees with its entity and pim.catalog.v1.AttributeOption / AttributeOptionInput', () => {
    expect(
      contractProblems({
        declaration: AttributeOption,
        entity: AttributeOptionEntity,
        protoFile: PROTO_FILES.attributes,
        message: 'pim.catalog.v1.AttributeOption',
        inputMessage: 'pim.catalog.v1.AttributeOptionInput',
      }),
    ).toEqual([]);
  });

  it('answers the same seven RPCs as every catalog resource', () => {
    expect(rpcsOf(PROTO_FILES.attributes, 'pim.catalog.v1.AttributeOptionsService')).toEqual(
      recordRpcs('AttributeOption', 'AttributeOptions'),
    );
  });
});

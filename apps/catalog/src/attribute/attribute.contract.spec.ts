import { PROTO_FILES } from '@pim/contracts';
import { Attribute } from '@pim/resources';
import { contractProblems, recordRpcs, rpcsOf } from '@pim/testing';
import { AttributeEntity } from '../entities/attribute.entity';

// The attribute is declared once (libs/resources); its table and its messages must agree with
// the declaration in names, types and optionality (links included; type_config is a Struct).
describe('attributes contract: declaration, entity and proto messages', () => {
  it('Attribute agrees with its entity and pim.catalog.v1.Attribute / AttributeInput', () => {
    expect(
      contractProblems({
        declaration: Attribute,
        entity: AttributeEntity,
        protoFile: PROTO_FILES.attributes,
        message: 'pim.catalog.v1.Attribute',
        inputMessage: 'pim.catalog.v1.AttributeInput',
      }),
    ).toEqual([]);
  });

  it('answers the same seven RPCs as every catalog resource', () => {
    expect(rpcsOf(PROTO_FILES.attributes, 'pim.catalog.v1.AttributesService')).toEqual(
      recordRpcs('Attribute', 'Attributes'),
    );
  });
});

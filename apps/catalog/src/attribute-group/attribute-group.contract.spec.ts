import { PROTO_FILES } from '@pim/contracts';
import { AttributeGroup } from '@pim/resources';
import { contractProblems, recordRpcs, rpcsOf } from '@pim/testing';
import { AttributeGroupEntity } from '../entities/attribute-group.entity';

// The attribute group is declared once (libs/resources); its table and its messages must agree
// with the declaration in names, types and optionality (users groups included).
describe('attribute groups contract: declaration, entity and proto messages', () => {
  it('AttributeGroup agrees with its entity and pim.catalog.v1.AttributeGroup / AttributeGroupInput', () => {
    expect(
      contractProblems({
        declaration: AttributeGroup,
        entity: AttributeGroupEntity,
        protoFile: PROTO_FILES.attributes,
        message: 'pim.catalog.v1.AttributeGroup',
        inputMessage: 'pim.catalog.v1.AttributeGroupInput',
      }),
    ).toEqual([]);
  });

  it('answers the same seven RPCs as every catalog resource', () => {
    expect(rpcsOf(PROTO_FILES.attributes, 'pim.catalog.v1.AttributeGroupsService')).toEqual(
      recordRpcs('AttributeGroup', 'AttributeGroups'),
    );
  });
});

import { PROTO_FILES } from '@pim/contracts';
import { Publication } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { PublicationEntity } from '../entities/publication.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('publications contract: declaration, entity and proto messages', () => {
  it('Publication agrees with PublicationEntity and pim.publisher.v1.Publication / PublicationInput', () => {
    expect(
      contractProblems({
        declaration: Publication,
        entity: PublicationEntity,
        protoFile: PROTO_FILES.publisher,
        message: 'pim.publisher.v1.Publication',
        inputMessage: 'pim.publisher.v1.PublicationInput',
      }),
    ).toEqual([]);
  });
});

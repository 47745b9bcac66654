import { PROTO_FILES } from '@pim/contracts';
import { PublicationBatch } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { PublicationBatchEntity } from '../entities/publication-batch.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('publication batches contract: declaration, entity and proto messages', () => {
  it('PublicationBatch agrees with PublicationBatchEntity and pim.publisher.v1.PublicationBatch / PublicationBatchInput', () => {
    expect(
      contractProblems({
        declaration: PublicationBatch,
        entity: PublicationBatchEntity,
        protoFile: PROTO_FILES.publisher,
        message: 'pim.publisher.v1.PublicationBatch',
        inputMessage: 'pim.publisher.v1.PublicationBatchInput',
      }),
    ).toEqual([]);
  });
});

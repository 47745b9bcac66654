import { PROTO_FILES } from '@pim/contracts';
import { Import } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { ImportEntity } from '../entities/import.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('imports contract: declaration, entity and proto messages', () => {
  it('Import agrees with ImportEntity and pim.iojobs.v1.Import / ImportInput', () => {
    expect(
      contractProblems({
        declaration: Import,
        entity: ImportEntity,
        protoFile: PROTO_FILES.ioJobs,
        message: 'pim.iojobs.v1.Import',
        inputMessage: 'pim.iojobs.v1.ImportInput',
      }),
    ).toEqual([]);
  });
});

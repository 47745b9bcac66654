import { PROTO_FILES } from '@pim/contracts';
import { Export } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { ExportEntity } from '../entities/export.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('exports contract: declaration, entity and proto messages', () => {
  it('Export agrees with ExportEntity and pim.iojobs.v1.Export / ExportInput', () => {
    expect(
      contractProblems({
        declaration: Export,
        entity: ExportEntity,
        protoFile: PROTO_FILES.ioJobs,
        message: 'pim.iojobs.v1.Export',
        inputMessage: 'pim.iojobs.v1.ExportInput',
      }),
    ).toEqual([]);
  });
});

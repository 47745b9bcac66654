import { PROTO_FILES } from '@pim/contracts';
import { ImportTemplate } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { ImportTemplateEntity } from '../entities/import-template.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('import templates contract: declaration, entity and proto messages', () => {
  it('ImportTemplate agrees with ImportTemplateEntity and pim.iojobs.v1.ImportTemplate / ImportTemplateInput', () => {
    expect(
      contractProblems({
        declaration: ImportTemplate,
        entity: ImportTemplateEntity,
        protoFile: PROTO_FILES.ioJobs,
        message: 'pim.iojobs.v1.ImportTemplate',
        inputMessage: 'pim.iojobs.v1.ImportTemplateInput',
      }),
    ).toEqual([]);
  });
});

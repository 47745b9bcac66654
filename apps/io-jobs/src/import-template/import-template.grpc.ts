import { ioJobs as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { ImportTemplateInput, ImportTemplateView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { ImportTemplateEntity } from '../entities/import-template.entity';

/** gRPC handlers of pim.iojobs.v1.ImportTemplatesService. */
export function importTemplatesGrpc(
  service: RecordService<ImportTemplateEntity, ImportTemplateView, ImportTemplateInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    mirrorCodec<ImportTemplateView, pb.ImportTemplate, pb.ImportTemplateInput>(),
    logger,
    { one: 'ImportTemplate', many: 'ImportTemplates' },
    (req: pb.BatchGetImportTemplatesRequest) => req.names ?? [],
  );
  const implementation: pb.ImportTemplatesServiceServer = {
    createImportTemplate: h.create,
    getImportTemplate: h.get,
    updateImportTemplate: h.update,
    patchImportTemplate: h.patch,
    deleteImportTemplate: h.delete,
    listImportTemplates: h.list,
    batchGetImportTemplates: h.batchGet,
  };
  return { name: 'pim.iojobs.v1.ImportTemplatesService', definition: pb.ImportTemplatesServiceService, implementation };
}

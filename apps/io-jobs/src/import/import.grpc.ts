import type { DataSource } from 'typeorm';
import { ioJobs as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { ImportInput, ImportView } from '@pim/resources';
import { clientStream, serverStream, unary, type ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { FileStorage } from '@pim/storage';
import type { ImportEntity } from '../entities/import.entity';
import { forgetRefusedRows } from '../repositories/import-errors.repository';
import { errorFile } from './import.errors';
import type { ImportMoves } from './import.moves';
import type { ImportUploads } from './import.upload';

/** What the imports service is made of. */
export interface ImportsParts {
  ds: DataSource;
  imports: RecordService<ImportEntity, ImportView, ImportInput>;
  uploads: ImportUploads;
  moves: ImportMoves;
  storage: FileStorage;
}

/** gRPC handlers of pim.iojobs.v1.ImportsService. */
export function importsGrpc(parts: ImportsParts, logger: Logger): ServiceRegistration {
  const { ds, imports, uploads, moves, storage } = parts;
  // The message carries the view's enums as strings.
  const codec = mirrorCodec<
    ImportView,
    Omit<pb.Import, 'status' | 'file_type'> & Pick<ImportView, 'status' | 'file_type'>,
    pb.ImportInput
  >();
  const encode = (view: ImportView) => ({ data: codec.toMessage(view) });
  const h = recordHandlers(imports, codec, logger, { one: 'Import', many: 'Imports' }, () => []);
  const implementation: pb.ImportsServiceServer = {
    uploadImport: clientStream(logger, 'UploadImport', async (messages: AsyncIterable<pb.UploadImportRequest>) =>
      encode(await uploads.upload(messages)),
    ),
    getImport: h.get,
    patchImport: h.patch,
    deleteImport: unary(logger, 'DeleteImport', async (req: pb.DeleteImportRequest) => {
      const view = await imports.remove(req.id, req.expected_version);
      // The record is gone; its file and refused rows go with it.
      if (view.file_key) await storage.remove(view.file_key);
      await forgetRefusedRows(ds.manager, view._id);
      return encode(view);
    }),
    listImports: h.list,
    batchGetImports: h.batchGet,
    startImport: unary(logger, 'StartImport', async (req: pb.StartImportRequest) =>
      encode(await moves.start(req.id, req.expected_version)),
    ),
    cancelImport: unary(logger, 'CancelImport', async (req: pb.CancelImportRequest) =>
      encode(await moves.cancel(req.id, req.expected_version)),
    ),
    downloadImportErrors: serverStream(
      logger,
      'DownloadImportErrors',
      async (req: pb.DownloadImportErrorsRequest, send: (res: pb.DownloadImportErrorsResponse) => Promise<void>) => {
        const file = errorFile(ds, await imports.get(req.id));
        await send({ file_name: file.fileName, content_type: file.contentType, data: Buffer.alloc(0) });
        for await (const chunk of file.bytes) await send({ data: chunk as Buffer });
      },
    ),
  };
  return { name: 'pim.iojobs.v1.ImportsService', definition: pb.ImportsServiceService, implementation };
}

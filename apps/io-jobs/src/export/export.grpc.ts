import { ioJobs as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { ExportInput, ExportView } from '@pim/resources';
import { serverStream, unary, type ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { FileStorage } from '@pim/storage';
import type { ExportEntity } from '../entities/export.entity';
import type { ExportMoves } from './export.moves';

/** What the exports service is made of. */
export interface ExportsParts {
  exports: RecordService<ExportEntity, ExportView, ExportInput>;
  moves: ExportMoves;
  storage: FileStorage;
}

/** gRPC handlers of pim.iojobs.v1.ExportsService. */
export function exportsGrpc(parts: ExportsParts, logger: Logger): ServiceRegistration {
  const { exports, moves, storage } = parts;
  // The message carries the view's enums as strings and its filters and headers as JSON.
  type Typed = 'status' | 'file_type' | 'report_type' | 'metadata' | 'filters' | 'headers';
  const codec = mirrorCodec<ExportView, Omit<pb.Export, Typed> & Pick<ExportView, Typed>, pb.ExportInput>();
  const encode = (view: ExportView) => ({ data: codec.toMessage(view) });
  const h = recordHandlers(exports, codec, logger, { one: 'Export', many: 'Exports' }, () => []);
  const implementation: pb.ExportsServiceServer = {
    createExport: h.create,
    getExport: h.get,
    deleteExport: unary(logger, 'DeleteExport', async (req: pb.DeleteExportRequest) => {
      const view = await exports.remove(req.id, req.expected_version);
      // The record is gone; its file goes with it (the retention sweep marks it removed).
      await storage.remove(view.file_key);
      return encode(view);
    }),
    listExports: h.list,
    batchGetExports: h.batchGet,
    retryExport: unary(logger, 'RetryExport', async (req: pb.RetryExportRequest) =>
      encode(await moves.retry(req.id, req.expected_version)),
    ),
    downloadExport: serverStream(
      logger,
      'DownloadExport',
      async (req: pb.DownloadExportRequest, send: (res: pb.DownloadExportResponse) => Promise<void>) => {
        const file = await moves.download(req.id);
        await send({
          file_name: file.fileName,
          content_type: file.contentType,
          file_size: file.size,
          data: Buffer.alloc(0),
        });
        for await (const chunk of file.bytes) await send({ data: chunk as Buffer });
      },
    ),
  };
  return { name: 'pim.iojobs.v1.ExportsService', definition: pb.ExportsServiceService, implementation };
}

import { z } from 'zod';
import { ioJobs as pb } from '@pim/contracts';
import { requireId } from '@pim/ids';
import { Export, type ExportInput, type ExportView } from '@pim/resources';
import { readServerStream, recordClient, type PromiseClient, type RecordClient } from '@pim/rpc';
import { SHEET_CONTENT_TYPES } from '@pim/sheets';
import { etag, etagHeaders, expectedVersion, ifMatchHeader } from '../http/conditional';
import { declaredCodec } from '../http/declared.codec';
import { dispositionHeader, fileDownload } from '../http/file-download';
import { recordRoutes } from '../http/resource.routes';
import type { Api } from '../http/route';

/** The exports service as the gateway calls it. */
export interface ExportClients {
  exports: RecordClient<pb.Export, pb.ExportInput>;
  /** Retry and download, beside the record calls. */
  exportActions: PromiseClient<pb.ExportsServiceClient> & { raw: pb.ExportsServiceClient };
}

/** The exports service's record calls (it has no Update or Patch: an export is never changed). */
export const exportRecordClient = (client: PromiseClient<pb.ExportsServiceClient>) =>
  recordClient<pb.Export, pb.ExportInput>(client, pb.ExportsServiceService, {
    one: 'Export',
    many: 'Exports',
    handles: 'codes',
    without: ['update', 'patch'],
  });

/** A download of a file of a million products. */
const DOWNLOAD_DEADLINE_MS = 3_600_000;
/** The largest file a download sends, as the document states a bound for it. */
const DOWNLOAD_MAX_BYTES = 9_007_199_254_740_991;

const exportCodec = declaredCodec<ExportView, pb.Export, pb.ExportInput, ExportInput>(Export);

const CREATE_DESCRIPTION =
  'Queues an export of the products its `filters` select (every filter given must hold; none: every live product) ' +
  'as a `file_type` file (csv: RFC 4180 — a field holding a comma, a quote or a line break is quoted —, UTF-8 with a byte order mark so Excel reads accents, ' +
  "and a ' before texts that start like a formula unless `csv_neutralize_formulas` is false; " +
  'xlsx: one worksheet, numbers, booleans and dates as typed cells, dates and times in UTC) ' +
  'of the `report_type`: `general` (a row per product), `per_attributes` (a row per product and attribute value) ' +
  'or `eligibility_services` (a row per product and service eligibility item). `headers` choose the columns, ' +
  'in order, and their titles; none: every column of the report. The answer is the export `pending`; a worker ' +
  'takes it (`in_progress`) and ends it `completed` (then GET /exports/{id}/download) or `failed` (then retry). ' +
  'A column or an attribute that does not exist is a 400 here, not a failure later.';

/** Who sees which exports: a restricted user their own (an export's file holds what its creator saw). */
const EXPORTS_VISIBILITY =
  'An API key bound to a user whose users groups do not see every product sees only the exports that user created: ' +
  'the others are left out of lists and their totals, and reading, downloading, retrying or deleting one answers 404, ' +
  'as for an export that does not exist. Admin keys, keys bound to no user and users in a group with ' +
  'has_full_product_access see every export.';

/** `POST /exports/{id}/retry`. */
function retryRoute(api: Api, client: () => ExportClients): void {
  api.route({
    method: 'post',
    path: '/exports/:id/retry',
    operationId: 'retryExport',
    scope: 'exports:write',
    summary: 'Retry a failed export',
    description:
      'Puts a `failed` export back to `pending`, its counts cleared, and queues it again: it is written from the beginning, with the filters and columns it was created with. Any other state is a 409 naming it.',
    tags: ['Exports'],
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: {
      200: { description: 'The export, pending again', schema: Export.schemas.view, headers: etagHeaders },
    },
    handler: async ({ params, headers }) => {
      const id = requireId(params.id, 'export');
      const reply = await client().exportActions.retryExport({
        id,
        expected_version: expectedVersion(headers['if-match'] as string | undefined),
      });
      const record = exportCodec.fromMessage(reply.data!);
      return { status: 200, body: record, headers: { ETag: etag(record.version) } };
    },
  });
}

/** `GET /exports/{id}/download`: the file, streamed. */
function downloadRoute(api: Api, client: () => ExportClients): void {
  api.route({
    method: 'get',
    path: '/exports/:id/download',
    operationId: 'downloadExport',
    scope: 'exports:read',
    summary: "Download an export's file",
    description:
      "Streams a `completed` export's file with its name (Content-Disposition) and type (`text/csv; charset=utf-8` for a CSV file, `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet` for an XLSX file), and adds the caller's user to `downloaded_by` (once; a key bound to no user adds no one). " +
      'Before the export is completed the answer is a 409; once its file has passed its retention period (`expires_at`) it is a 410: create the export again.',
    tags: ['Exports'],
    longRunning: true,
    errors: [409, 410],
    responses: {
      200: {
        description: 'The file, in the format of the export',
        schema: z.string().max(DOWNLOAD_MAX_BYTES).meta({ format: 'binary' }),
        contentType: [SHEET_CONTENT_TYPES.csv, SHEET_CONTENT_TYPES.xlsx],
        headers: z.object({
          'Content-Disposition': dispositionHeader("the export's file_name"),
          'Content-Length': z.string().max(20).meta({ description: 'The size of the file in bytes' }),
        }),
      },
    },
    handler: async ({ params }) => {
      const id = requireId(params.id, 'export');
      const messages = readServerStream<pb.DownloadExportRequest, pb.DownloadExportResponse>(
        client().exportActions.raw,
        'downloadExport',
        { id },
        { service: 'io-jobs', deadlineMs: DOWNLOAD_DEADLINE_MS },
      );
      // The first message names the file (and a refusal — unknown, not completed, expired — fails there, before any byte).
      return fileDownload(messages, 'export');
    },
  });
}

/** The exports' routes: create (queued), read, list, delete, retry and download. */
export function exportRoutes(api: Api, client: () => ExportClients, limits: Parameters<typeof recordRoutes>[2]): void {
  recordRoutes(
    api,
    {
      collection: 'exports',
      handle: '_id',
      searches: 'file_name',
      schemas: Export.schemas,
      listDecl: Export.listDecl,
      client: () => client().exports,
      codec: exportCodec,
      without: ['replace', 'patch'],
      createDescription: CREATE_DESCRIPTION,
      visibility: EXPORTS_VISIBILITY,
    },
    limits,
    {},
    {},
  );
  retryRoute(api, client);
  downloadRoute(api, client);
}

import { z } from 'zod';
import { ioJobs as pb } from '@pim/contracts';
import { requireId } from '@pim/ids';
import {
  FINAL_IMPORT_STATUSES,
  Import,
  type ImportInput,
  type ImportView,
  ImportTemplate,
  type ImportTemplateInput,
  type ImportTemplateView,
} from '@pim/resources';
import {
  createRpcClient,
  openClientStream,
  readServerStream,
  recordClient,
  type PromiseClient,
  type RecordClient,
} from '@pim/rpc';
import { SHEET_CONTENT_TYPES } from '@pim/sheets';
import { etag, etagHeaders, expectedVersion, ifMatchHeader, locationHeaders } from '../http/conditional';
import { declaredCodec } from '../http/declared.codec';
import { UPLOAD_MAX_BYTES } from '../config';
import { dispositionHeader, fileDownload } from '../http/file-download';
import { readUpload } from '../http/multipart';
import { recordRoutes } from '../http/resource.routes';
import type { Api } from '../http/route';
import { exportRecordClient, exportRoutes, type ExportClients } from './exports.routes';
import type { OwnerRoutes } from './owners';

/** The io-jobs app's services as the gateway calls them. */
interface IoJobsClients extends ExportClients {
  imports: RecordClient<pb.Import, pb.ImportInput>;
  /** Upload, start, cancel and the error file, beside the record calls. */
  importActions: PromiseClient<pb.ImportsServiceClient> & { raw: pb.ImportsServiceClient };
  importTemplates: RecordClient<pb.ImportTemplate, pb.ImportTemplateInput>;
  // generator:client-types
  close(): void;
}

/** An upload may take as long as the file takes to arrive and be read. */
const UPLOAD_DEADLINE_MS = 3_600_000;
/** A download of an error file. */
const DOWNLOAD_DEADLINE_MS = 600_000;
/** How often the progress stream looks at the import, and sends a comment to keep idle connections open. */
const PROGRESS_POLL_MS = 1_000;
const PROGRESS_KEEPALIVE_MS = 15_000;
/** The longest a progress stream stays open; a caller reconnects to follow a longer import. */
const PROGRESS_MAX_MS = 3_600_000;

const importCodec = declaredCodec<ImportView, pb.Import, pb.ImportInput, ImportInput>(Import);

/** The largest file a download sends, as the document states a bound for it. */
const DOWNLOAD_MAX_BYTES = 2_147_483_647;

const uploadForm = (maxBytes: number) =>
  z
    .object({
      file: z
        .string()
        .max(maxBytes)
        .meta({
          format: 'binary',
          description: `The spreadsheet: an .xlsx or .ods workbook or a .csv file, at most ${maxBytes.toLocaleString('en-US')} bytes`,
        }),
      catalog_id: z.string().max(24).optional().meta({ description: 'A catalog every imported product joins' }),
      category_id: z.string().max(24).optional().meta({ description: 'A category every imported product joins' }),
      from_template_id: z
        .string()
        .max(24)
        .optional()
        .meta({ description: 'An import template whose mapping is applied (the import is then `mapped`)' }),
      time_zone: z.string().max(64).optional().meta({
        description:
          "The IANA time zone the file's date-times without an offset were written in (America/Sao_Paulo); default: the template's, else the platform's",
        example: 'America/Sao_Paulo',
      }),
    })
    .meta({ id: 'ImportUpload', description: 'The upload form' });

const progressEvent = z
  .string()
  .max(10_000)
  .meta({
    description:
      'Server-Sent Events: an `import` event with the import as JSON at once and whenever it changes, ' +
      'until it reaches a final state (then the stream ends); comment lines keep an idle connection open.',
    example:
      'event: import\ndata: {"_id":"6740a1b2c3d4e5f601234567","status":"processing","proccess_count":2000,"commit_count":1990,"errors_count":10, …}\n\n',
  });

/** `POST /imports`: the multipart upload streamed to io-jobs. */
function uploadRoute(api: Api, client: () => IoJobsClients, uploadMaxBytes: number): void {
  api.route({
    method: 'post',
    path: '/imports',
    operationId: 'createImport',
    scope: 'imports:write',
    summary: 'Upload a spreadsheet to import',
    description:
      `Send an .xlsx or .ods workbook or a .csv file (comma or semicolon separated; UTF-8, with or without BOM, or Latin-1) as multipart/form-data, the file in a part named \`file\` (\`curl -F file=@products.xlsx\`). ` +
      `It is stored as it arrives; past ${uploadMaxBytes.toLocaleString('en-US')} bytes the upload is refused with 413 and nothing is kept. ` +
      'The answer is the import `uploaded`: its worksheets (each with its detected header row and row count) and, for the worksheet that looks like the product table (or the only one), the detected header row and its headers, with the column and row counts. ' +
      'Next, map its columns (PATCH `mapped_headers`) or name a template here (`from_template_id`), then start it. ' +
      "Cells that start with ' followed by =, +, -, @, a tab, a carriage return or ' are read without that first ' (the quote CSV exports put before texts that look like formulas); for a file made elsewhere whose texts really start so, PATCH `strip_formula_quote: false` before starting.",
    tags: ['Imports'],
    upload: uploadForm(uploadMaxBytes),
    longRunning: true,
    errors: [404],
    responses: {
      201: {
        description: 'The import, uploaded (or mapped, with a template)',
        schema: Import.schemas.view,
        headers: etagHeaders.extend(locationHeaders.shape),
      },
    },
    handler: async ({ request, path }) => {
      const call = openClientStream<pb.UploadImportRequest, pb.UploadImportResponse>(
        client().importActions.raw,
        'uploadImport',
        { service: 'io-jobs', deadlineMs: UPLOAD_DEADLINE_MS },
      );
      try {
        const fields = await readUpload(request, {
          fileField: 'file',
          maxBytes: uploadMaxBytes,
          onFile: async ({ fileName, stream }) => {
            await call.write({ part: { $case: 'start', value: { file_name: fileName } } });
            for await (const chunk of stream) await call.write({ part: { $case: 'chunk', value: chunk as Buffer } });
          },
        });
        const text = (name: string) =>
          typeof fields[name] === 'string' && fields[name] !== '' ? fields[name] : undefined;
        await call.write({
          part: {
            $case: 'fields',
            value: {
              catalog_id: text('catalog_id'),
              category_id: text('category_id'),
              from_template_id: text('from_template_id'),
              time_zone: text('time_zone'),
            },
          },
        });
        const reply = await call.end();
        const record = importCodec.fromMessage(reply.data!);
        return {
          status: 201,
          body: record,
          headers: { ETag: etag(record.version), Location: `${path}/${record._id}` },
        };
      } catch (err) {
        // Either the caller's body failed here (413, a malformed form) or io-jobs refused the file
        // (its error came back through the write): either way it is the answer.
        call.cancel();
        throw err;
      }
    },
  });
}

/** Who sees which imports: a restricted user their own (an import's counts and refused rows are what its user could write). */
const IMPORTS_VISIBILITY =
  'An import belongs to the user who uploaded it and, once started, to the user who started it (it writes products as them). ' +
  'An API key bound to a user whose users groups do not see every product sees only the imports that belong to that user: ' +
  'the others are left out of lists and their totals, and every call on one (reading, changing, starting, canceling, ' +
  'deleting, its error file, its progress) answers 404, as for an import that does not exist. Admin keys, keys bound to ' +
  'no user and users in a group with has_full_product_access see every import.';

const MOVES = {
  start: {
    summary: 'Start an import',
    description:
      'Queues a `mapped` import for a worker (`queued`; then `processing` and, after its last row, `completed` or `completed_with_errors`). Any other state is a 409 naming it.',
    call: 'startImport',
  },
  cancel: {
    summary: 'Cancel an import',
    description:
      'Cancels an import that has not finished: a queued one never runs; a running one stops after the batches it is writing (at most two; the counts include them). A finished import is a 409.',
    call: 'cancelImport',
  },
} as const;

/** `POST /imports/{id}/start` and `/cancel`. */
function moveRoutes(api: Api, client: () => IoJobsClients): void {
  for (const [verb, move] of Object.entries(MOVES)) {
    api.route({
      method: 'post',
      path: `/imports/:id/${verb}`,
      operationId: `${verb}Import`,
      scope: 'imports:write',
      summary: move.summary,
      description: move.description,
      tags: ['Imports'],
      requestHeaders: ifMatchHeader,
      errors: [409, 412],
      responses: {
        200: { description: 'The import after the move', schema: Import.schemas.view, headers: etagHeaders },
      },
      handler: async ({ params, headers }) => {
        const id = requireId(params.id, 'import');
        const reply = await client().importActions[move.call]({
          id,
          expected_version: expectedVersion(headers['if-match'] as string | undefined),
        });
        const record = importCodec.fromMessage(reply.data!);
        return { status: 200, body: record, headers: { ETag: etag(record.version) } };
      },
    });
  }
}

/** `GET /imports/{id}/errors`: the refused rows as a file. */
function errorsRoute(api: Api, client: () => IoJobsClients): void {
  api.route({
    method: 'get',
    path: '/imports/:id/errors',
    operationId: 'downloadImportErrors',
    scope: 'imports:read',
    summary: "Download an import's refused rows",
    description:
      'The rows the import could not store, in the format uploaded (CSV or XLSX; XLSX for an ODS upload) under the same header row, with a `Problems` column naming what is wrong in each (`C (Color): "blu" is not an option …`). Fix them and upload the file again. While the import runs, the file holds the rows refused so far. ' +
      "A CSV file is written as exports are: `text/csv; charset=utf-8`, RFC 4180 (a field holding a comma, a quote or a line break is quoted), and a ' before texts that start like a formula (=, +, -, @, a tab, a carriage return or '), which a new import removes again; an XLSX file is `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`.",
    tags: ['Imports'],
    longRunning: true,
    responses: {
      200: {
        description: 'The error file, in the format uploaded',
        schema: z.string().max(DOWNLOAD_MAX_BYTES).meta({ format: 'binary' }),
        contentType: [SHEET_CONTENT_TYPES.csv, SHEET_CONTENT_TYPES.xlsx],
        headers: z.object({
          'Content-Disposition': dispositionHeader(
            'the uploaded file name without its extension, then -errors.csv or -errors.xlsx',
          ),
        }),
      },
    },
    handler: async ({ params }) => {
      const id = requireId(params.id, 'import');
      const messages = readServerStream<pb.DownloadImportErrorsRequest, pb.DownloadImportErrorsResponse>(
        client().importActions.raw,
        'downloadImportErrors',
        { id },
        { service: 'io-jobs', deadlineMs: DOWNLOAD_DEADLINE_MS },
      );
      // The first message names the file (and an unknown import fails there, before any byte is sent).
      return fileDownload(messages, 'errors');
    },
  });
}

/** `GET /imports/{id}/progress`: the import as Server-Sent Events while it runs. */
function progressRoute(api: Api, client: () => IoJobsClients): void {
  api.route({
    method: 'get',
    path: '/imports/:id/progress',
    operationId: 'followImport',
    scope: 'imports:read',
    summary: "Follow an import's progress",
    description:
      'Server-Sent Events (`text/event-stream`; `curl -N` follows it): an `import` event carrying the import at once, then each time it changes (counts grow after every batch), until it is completed, completed_with_errors, failed or canceled — then the stream ends. Any replica of the API serves it.',
    tags: ['Imports'],
    longRunning: true,
    responses: {
      200: { description: 'The stream of events', schema: progressEvent, contentType: 'text/event-stream' },
    },
    handler: async ({ params }) => {
      const id = requireId(params.id, 'import');
      const read = async () => importCodec.fromMessage((await client().imports.get({ id })).data!);
      const first = await read(); // an unknown import is a 404 before the stream opens
      async function* events(): AsyncGenerator<string> {
        let current = first;
        let version = -1;
        let quiet = 0;
        const until = Date.now() + PROGRESS_MAX_MS;
        for (;;) {
          if (current.version !== version) {
            version = current.version;
            quiet = 0;
            yield `event: import\ndata: ${JSON.stringify(current)}\n\n`;
          }
          if (FINAL_IMPORT_STATUSES.includes(current.status) || Date.now() > until) return;
          await new Promise((r) => setTimeout(r, PROGRESS_POLL_MS));
          quiet += PROGRESS_POLL_MS;
          if (quiet >= PROGRESS_KEEPALIVE_MS) {
            quiet = 0;
            yield ': still running\n\n';
          }
          current = await read();
        }
      }
      return {
        status: 200,
        stream: events(),
        headers: {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-cache',
          'X-Accel-Buffering': 'no',
        },
      };
    },
  });
}

/** The io-jobs app's routes: imports (upload, mapping, moves, error file, progress), import templates and exports. */
export const ioJobsRoutes: OwnerRoutes = {
  app: 'io-jobs',
  addressEnv: 'IO_JOBS_GRPC_URL',
  defaultAddress: '127.0.0.1:50060',
  clients: (opts): IoJobsClients => {
    const o = { service: 'io-jobs', ...opts };
    const imports = createRpcClient(pb.ImportsServiceClient, o);
    const importTemplates = createRpcClient(pb.ImportTemplatesServiceClient, o);
    const exports = createRpcClient(pb.ExportsServiceClient, o);
    // generator:clients
    return {
      imports: recordClient(imports, pb.ImportsServiceService, {
        one: 'Import',
        many: 'Imports',
        handles: 'codes',
        without: ['create', 'update'],
      }),
      importActions: imports,
      importTemplates: recordClient(importTemplates, pb.ImportTemplatesServiceService, {
        one: 'ImportTemplate',
        many: 'ImportTemplates',
        handles: 'names',
      }),
      exports: exportRecordClient(exports),
      exportActions: exports,
      // generator:client-entries
      close: () => {
        imports.close();
        importTemplates.close();
        exports.close();
        // generator:close
      },
    };
  },
  routes: (api, clients, limits) => {
    const c = clients as () => IoJobsClients;
    uploadRoute(api, c, limits.uploadMaxBytes ?? UPLOAD_MAX_BYTES);
    recordRoutes(
      api,
      {
        collection: 'imports',
        handle: '_id',
        searches: 'file_name',
        schemas: Import.schemas,
        listDecl: Import.listDecl,
        client: () => c().imports,
        codec: importCodec,
        without: ['create', 'replace'],
        visibility: IMPORTS_VISIBILITY,
      },
      limits,
      {},
      {},
    );
    moveRoutes(api, c);
    errorsRoute(api, c);
    progressRoute(api, c);
    recordRoutes(
      api,
      {
        collection: 'import_templates',
        handle: 'name',
        searches: 'name',
        schemas: ImportTemplate.schemas,
        listDecl: ImportTemplate.listDecl,
        client: () => c().importTemplates,
        codec: declaredCodec<ImportTemplateView, pb.ImportTemplate, pb.ImportTemplateInput, ImportTemplateInput>(
          ImportTemplate,
        ),
      },
      limits,
      {},
      {},
    );
    exportRoutes(api, c, limits);
    // generator:routes
  },
};

import type { EntityManager } from 'typeorm';
import { type ConflictError, ValidationError, stateConflict, withLinks } from '@pim/errors';
import { declaredRecord, runAsOwnedAudience } from '@pim/records';
import { Import, UTC, canonicalTimeZone, importRowShape, type ImportHeader, type ImportStatus } from '@pim/resources';
import { currentRunAs } from '@pim/logging';
import type { FileStorage } from '@pim/storage';
import { ImportEntity } from '../entities/import.entity';
import type { CatalogLink } from '../links/catalog.link';
import { liveTemplate } from '../repositories/import-templates.repository';
import {
  checkMapping,
  mappedAttributeKeys,
  mappingFromTemplate,
  mappingProblems,
  ownHeadersMapping,
  type Mapping,
} from './import.mapping';
import { inspect, sheetFields, sheetOf } from './import.sheet';

/** States in which a caller may still change how an import reads its file. */
export const EDITABLE: readonly ImportStatus[] = ['uploaded', 'mapped'];

/** A 409 for a change the import's state does not allow (`to`: the state the change would move it to). */
export function notNow(
  record: ImportEntity,
  what: string,
  allowed: readonly ImportStatus[],
  to?: ImportStatus,
): ConflictError {
  return stateConflict('Import', record, what, allowed, to);
}

/** What an import's record is settled with. */
interface ImportDeps {
  storage: FileStorage;
  catalog: CatalogLink;
  /** The zone of imports that name none, nor their template (the platform's setting; UTC when absent). */
  defaultTimeZone?: string;
}

/**
 * Takes the mapping of a live, enabled template, matched to the sheet's headers by label, and its
 * time zone unless the import names its own (`zoneGiven`).
 */
async function applyTemplate(
  m: EntityManager,
  next: ImportEntity,
  headers: ImportHeader[],
  zoneGiven: boolean,
): Promise<void> {
  const template = await liveTemplate(m, next.from_template_id!);
  if (!template || !template.enabled) {
    throw new ValidationError(
      `No ${template ? 'enabled' : 'live'} import template has _id '${next.from_template_id}'`,
      {
        title: 'Unknown import template',
        ...withLinks((link) => `Use the _id of an enabled template from ${link({ collection: 'import_templates' })}`),
        details: [{ field: 'from_template_id', message: `is not an enabled import template` }],
      },
    );
  }
  next.mapped_headers = mappingFromTemplate(template.mapped_headers, headers);
  if (!zoneGiven && template.time_zone) next.time_zone = template.time_zone;
  next.template = {
    id: template._id,
    name: template.name,
    enabled: template.enabled,
    created_at: template.created_at.toISOString(),
    deleted: template.deleted,
  };
}

/**
 * A file of the platform's own exports maps itself at upload: each header naming a field the
 * import fills is mapped to it (`ownHeadersMapping`), so an export imports back with no template.
 * A header that cannot be mapped so (an attribute deleted since the export) is left out and said
 * in the import's logs; nothing is mapped unless a header names `code`.
 */
async function mapOwnHeaders(catalog: CatalogLink, next: ImportEntity): Promise<void> {
  const headers = (next.headers ?? []) as ImportHeader[];
  const own = ownHeadersMapping(headers);
  if (Object.keys(own).length === 0) return;
  const problems = mappingProblems(own, headers, await catalog.attributes(mappedAttributeKeys(own)));
  const refused = new Set(problems.map((p) => p.field.replace(/^mapped_headers\./, '')));
  next.mapped_headers = Object.fromEntries(Object.entries(own).filter(([column]) => !refused.has(column)));
  const label = new Map(headers.map((h) => [h.column, h.label]));
  next.logs = [
    ...((next.logs ?? []) as string[]),
    `Columns mapped from their headers (${Object.keys(next.mapped_headers).length}): the file's headers name the fields they fill`,
    ...problems
      .filter((p) => p.field.startsWith('mapped_headers.'))
      .map((p) => {
        const column = p.field.slice('mapped_headers.'.length);
        return `Column ${column} (${label.get(column) ?? ''}) was not mapped: ${p.message}`;
      }),
  ];
}

/** Checks that the catalog and category an import puts products in are live. */
async function checkTargets(catalog: CatalogLink, next: ImportEntity, prev: ImportEntity | null): Promise<void> {
  const details = [];
  if (next.catalog_id && next.catalog_id !== prev?.catalog_id && !(await catalog.catalog(next.catalog_id)))
    details.push({ field: 'catalog_id', message: `no live catalog has _id '${next.catalog_id}'` });
  if (next.category_id && next.category_id !== prev?.category_id && !(await catalog.categoryExists(next.category_id)))
    details.push({ field: 'category_id', message: `no live category has _id '${next.category_id}'` });
  if (details.length > 0)
    throw new ValidationError(details.map((d) => d.message).join('; '), {
      title: 'Unknown catalog or category',
      details,
    });
}

/**
 * Eligibility rows write product relations, never a product: a catalog or category every product
 * joins would be dropped without a word, so they are refused with such a mapping.
 */
function checkShapeTargets(next: ImportEntity, mapping: Mapping): void {
  if (importRowShape(Object.values(mapping)) !== 'eligibility_rows') return;
  const details = (['catalog_id', 'category_id'] as const)
    .filter((f) => next[f])
    .map((field) => ({
      field,
      message: 'is for imports that write products; eligibility rows write product relations only',
    }));
  if (details.length === 0) return;
  throw new ValidationError(
    'An import of eligibility rows (relation and item columns) puts no product in a catalog or category',
    {
      title: 'Catalog or category with eligibility rows',
      solution: 'Leave catalog_id and category_id out of an import of eligibility rows, or map product rows',
      details,
    },
  );
}

/**
 * Settles an import before it is stored: the sheet re-read when the worksheet or header row
 * changed (re-detecting the header row of another worksheet), or when `strip_formula_quote`
 * changed (its header labels are read again with or without the quote), a template's mapping
 * taken when named (with its time zone, unless the import names one), the mapping checked against
 * the headers and the catalog's attributes, the time zone recorded (the one named, the template's,
 * else the platform's) and the state following from it (`mapped` once something is mapped,
 * `uploaded` otherwise).
 */
async function settle(
  m: EntityManager,
  deps: ImportDeps,
  next: ImportEntity,
  prev: ImportEntity | null,
): Promise<void> {
  if (prev && !EDITABLE.includes(prev.status)) throw notNow(prev, 'its settings can no longer change', EDITABLE);
  await checkTargets(deps.catalog, next, prev);
  const worksheetChanged = prev !== null && next.file_worksheet_id !== prev.file_worksheet_id;
  const headerChanged = prev !== null && next.file_header_row !== prev.file_header_row;
  const quoteChanged = prev !== null && next.strip_formula_quote !== prev.strip_formula_quote;
  if (worksheetChanged || headerChanged || quoteChanged) {
    const worksheets = (prev?.worksheets ?? []) as { id: string }[];
    if (next.file_worksheet_id && !worksheets.some((w) => w.id === next.file_worksheet_id)) {
      throw new ValidationError(`The file has no worksheet with id '${next.file_worksheet_id}'`, {
        title: 'Unknown worksheet',
        solution: `Use one of the ids in worksheets: ${worksheets.map((w) => w.id).join(', ')}`,
        details: [{ field: 'file_worksheet_id', message: 'is not one of worksheets[].id' }],
      });
    }
    const summary = await inspect(sheetOf(deps.storage, next), {
      worksheetId: next.file_worksheet_id ?? undefined,
      // Another worksheet's header row is found again; the same worksheet keeps its own.
      headerRow: headerChanged || !worksheetChanged ? (next.file_header_row ?? undefined) : undefined,
    });
    Object.assign(next, sheetFields(summary, next.strip_formula_quote));
  }
  const zoneGiven = Boolean(next.time_zone) && next.time_zone !== prev?.time_zone;
  if (next.time_zone) next.time_zone = canonicalTimeZone(next.time_zone) ?? next.time_zone;
  const mappingGiven = prev === null || JSON.stringify(next.mapped_headers) !== JSON.stringify(prev.mapped_headers);
  const templateNamed = next.from_template_id && next.from_template_id !== prev?.from_template_id;
  // The quote's setting alone moves no column: the mapping, by letter, stays as it is.
  if (templateNamed || ((worksheetChanged || headerChanged) && !mappingGiven && next.from_template_id))
    await applyTemplate(m, next, next.headers as ImportHeader[], zoneGiven);
  else if ((worksheetChanged || headerChanged) && !mappingGiven) next.mapped_headers = {};
  if (!next.from_template_id) next.template = null;
  if (prev === null && !next.from_template_id && Object.keys(next.mapped_headers ?? {}).length === 0)
    await mapOwnHeaders(deps.catalog, next);
  const mapping = (next.mapped_headers ?? {}) as Mapping;
  checkMapping(mapping, next.headers as ImportHeader[], await deps.catalog.attributes(mappedAttributeKeys(mapping)));
  checkShapeTargets(next, mapping);
  next.time_zone ||= deps.defaultTimeZone ?? UTC;
  next.status = Object.keys(mapping).length > 0 ? 'mapped' : 'uploaded';
}

/**
 * Imports on the record engine. Created only by an upload (which fills the file's fields), then
 * patched while `uploaded` or `mapped`: see `settle`. Identified by `_id` alone. A queued or
 * running import is not deleted (cancel it first). It belongs to whom it runs as (`run_as`): its
 * uploader, then the user who started it; a caller restricted by users groups sees only the
 * imports that are theirs (`runAsOwnedAudience`): another's counts and refused rows are what that
 * user could write.
 */
export const importRecord = (deps: ImportDeps) =>
  declaredRecord(Import, {
    entity: ImportEntity,
    handle: '_id',
    audience: runAsOwnedAudience(),
    hooks: {
      async beforeWrite(m, next, prev) {
        // The uploader owns it until someone starts it (start keeps the starter, whom it writes as).
        if (!prev) next.run_as = currentRunAs();
        await settle(m, deps, next, prev);
      },
      async beforeDelete(_m, record) {
        if (record.status === 'queued' || record.status === 'processing')
          throw notNow(record, 'a queued or running import is not deleted; cancel it first', [
            'uploaded',
            'mapped',
            'completed',
            'completed_with_errors',
            'failed',
            'canceled',
          ]);
      },
    },
  });

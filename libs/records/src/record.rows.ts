import type { EntityManager } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';
import { copyColumnsOf, copyInto, quoteIdent } from '@pim/db';

/**
 * Set-based statements over many rows of one table, each one statement whatever the number of
 * rows: the rows travel as one JSON array that Postgres turns into rows of the table's own type
 * (`json_populate_recordset`), so every value is read as its column's type — jsonb, text[],
 * timestamptz — with no SQL to build per row and no parameter limit.
 */

/** The columns a statement writes: every stored column but those Postgres computes (generated ones). */
function writtenColumns(meta: EntityMetadata): ColumnMetadata[] {
  return meta.columns.filter((c) => !c.generatedType && !c.asExpression && !c.isVirtual);
}

/** The table's qualified name, quoted. */
function tableOf(meta: EntityMetadata): string {
  return meta.schema ? `${quoteIdent(meta.schema)}.${quoteIdent(meta.tableName)}` : quoteIdent(meta.tableName);
}

/**
 * The rows as the JSON array `json_populate_recordset` reads: keyed by column name, values as
 * stored (transformers applied); a value the record leaves undefined is left out, so the row takes
 * the base row's (the column's default, on insert).
 */
function rowsJson(columns: ColumnMetadata[], records: object[]): string {
  return JSON.stringify(
    records.map((r) => Object.fromEntries(columns.map((c) => [c.databaseName, c.getEntityValue(r, true)]))),
  );
}

/** Each table's row of column defaults, as JSON, read once: what an insert leaves unset takes. */
const defaultRows = new WeakMap<EntityMetadata, Promise<string>>();

/** The table's columns at their defaults (NULL where a column has none), evaluated by Postgres once. */
function defaultsOf(m: EntityManager, meta: EntityMetadata): Promise<string> {
  let row = defaultRows.get(meta);
  if (!row) {
    row = m
      .query(
        `SELECT column_name, column_default FROM information_schema.columns
          WHERE table_schema = COALESCE($1, current_schema()) AND table_name = $2 AND column_default IS NOT NULL`,
        [meta.schema ?? null, meta.tableName],
      )
      .then(async (defaults: { column_name: string; column_default: string }[]) => {
        if (defaults.length === 0) return '{}';
        const [{ row: json }] = await m.query(
          `SELECT json_build_object(${defaults.map((d, i) => `$${i + 1}::text, ${d.column_default}`).join(', ')})::text AS row`,
          defaults.map((d) => d.column_name),
        );
        return json as string;
      });
    row.catch(() => defaultRows.delete(meta));
    defaultRows.set(meta, row);
  }
  return row;
}

/**
 * Inserts the records with one COPY (Postgres's fastest way in); a column a record leaves
 * undefined takes the table's default. A unique index broken by one row fails the whole COPY:
 * the caller reads `isUniqueViolation` and runs its round again.
 */
export async function insertRows(m: EntityManager, meta: EntityMetadata, records: object[]): Promise<void> {
  if (records.length === 0) return;
  const columns = writtenColumns(meta);
  const defaults = JSON.parse(await defaultsOf(m, meta)) as Record<string, unknown>;
  await copyInto(
    m,
    meta.tableName,
    copyColumnsOf(
      meta,
      columns.map((c) => c.databaseName),
    ),
    records.map((r) =>
      columns.map((c) => {
        const value = c.getEntityValue(r, true);
        return value === undefined ? (defaults[c.databaseName] ?? null) : value;
      }),
    ),
  );
}

/** The unique index an error broke (a handle another writer took meanwhile), if it is such an error. */
export function uniqueViolated(err: unknown): string | undefined {
  const e = err as
    { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } } | undefined;
  const pg = e?.driverError ?? e;
  return pg?.code === '23505' ? (pg.constraint ?? '') : undefined;
}

/** Writes every column of the records (matched by `_id`) in one statement. */
export async function updateRows(m: EntityManager, meta: EntityMetadata, records: object[]): Promise<void> {
  if (records.length === 0) return;
  const columns = writtenColumns(meta).filter((c) => c.databaseName !== '_id');
  await m.query(
    `UPDATE ${tableOf(meta)} AS t SET ${columns.map((c) => `${quoteIdent(c.databaseName)} = v.${quoteIdent(c.databaseName)}`).join(', ')}
       FROM json_populate_recordset(NULL::${tableOf(meta)}, $1::json) AS v
      WHERE t."_id" = v."_id"`,
    [rowsJson([...columns, meta.findColumnWithDatabaseName('_id')!], records)],
  );
}

/**
 * The ids among the records that a condition on alias `t` keeps, evaluated on the records as they
 * would be stored — before they are: a write the caller could no longer see is refused, not undone.
 */
export async function idsWhere(
  m: EntityManager,
  meta: EntityMetadata,
  records: object[],
  where: { sql: string; params: Record<string, unknown> },
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const [sql, params] = m.connection.driver.escapeQueryWithParameters(
    `SELECT t."_id" FROM json_populate_recordset(NULL::${tableOf(meta)}, :__rows::json) AS t WHERE (${where.sql})`,
    { ...where.params, __rows: rowsJson(writtenColumns(meta), records) },
  );
  const rows: { _id: string }[] = await m.query(sql, params);
  return new Set(rows.map((r) => r._id));
}

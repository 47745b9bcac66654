// A test resource of the record engine on its own table (not exported from the package): widgets,
// named by `code`, with hooks and an audience each test steers.
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { Column, Entity, Index } from 'typeorm';
import { z } from 'zod';
import { createDataSource, migrate, type AppDataSourceOptions } from '@pim/db';
import { ConflictError, ValidationError } from '@pim/errors';
import {
  DeadLetter,
  OUTBOX_DEAD_LETTERS_UP_SQL,
  OUTBOX_ENVELOPE_AS_JSON_UP_SQL,
  OUTBOX_UP_SQL,
  OutboxEvent,
  type EventEnvelope,
} from '@pim/events';
import { declareResource } from '@pim/query';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { SearchableRecordEntity } from '../record.entity';
import { searchTextOf, type RecordResource, type RecordView } from '../record.resource';
import { RecordService } from '../record.service';

/** The schema the widgets live in, beside their outbox. */
export const WIDGETS_SCHEMA = 'widgets_test';

/**
 * The collection the widgets' events and messages are named after: a collection must be declared
 * in COLLECTIONS (@pim/resources), so the widgets borrow brands' (a code-named, flat one).
 */
export const WIDGETS_COLLECTION = 'brands';

/** The tag a restricted caller's widgets carry: they see only those. */
export const MINE = 'mine';

/** A widget row: a code (its handle), text, an array, json, a number and a column only the database fills. */
@Entity({ name: 'widgets' })
@Index('UQ_widgets_code_live', ['code'], { unique: true, where: 'deleted = false' })
export class WidgetEntity extends SearchableRecordEntity {
  @Column({ type: 'text' })
  code!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  @Column({ type: 'jsonb', default: () => "'{}'" })
  data!: Record<string, unknown>;

  @Column({ type: 'double precision', nullable: true })
  price!: number | null;

  /** Never written by the resource: the database's default (`[]`) is what a new widget holds. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  notes!: unknown[];
}

/** The widgets' table and its outbox, as an app's migrations would create them. */
export class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "widgets" (
      "_id" character(24) NOT NULL,
      "version" integer NOT NULL DEFAULT 1,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
      "created_by_name" text,
      "deleted" boolean NOT NULL DEFAULT false,
      "deleted_at" TIMESTAMP WITH TIME ZONE,
      "deleted_by" text,
      "search_text" text NOT NULL,
      "code" text NOT NULL,
      "name" text NOT NULL,
      "tags" text array NOT NULL DEFAULT '{}',
      "data" jsonb NOT NULL DEFAULT '{}',
      "price" double precision,
      "notes" jsonb NOT NULL DEFAULT '[]',
      CONSTRAINT "PK_widgets" PRIMARY KEY ("_id"))`);
    await q.query(`CREATE UNIQUE INDEX "UQ_widgets_code_live" ON "widgets" ("code") WHERE deleted = false`);
    for (const sql of [...OUTBOX_UP_SQL, ...OUTBOX_ENVELOPE_AS_JSON_UP_SQL, ...OUTBOX_DEAD_LETTERS_UP_SQL])
      await q.query(sql);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "widgets"`);
  }
}

/**
 * What a widget's create, replace or upsert takes. As in a declared resource, an omitted optional
 * field has no default here (`columns` gives it one), so an upsert that omits it keeps its value.
 */
export const widgetInput = z.object({
  code: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  tags: z.array(z.string().min(1)).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  price: z.number().nonnegative().nullable().optional(),
});

/** A JSON merge patch of a widget: any field, null to return an optional one to its default. */
const widgetPatch = z
  .object({
    code: z.string().min(1).max(100),
    name: z.string().min(1).max(200),
    tags: z.array(z.string().min(1)).nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
    price: z.number().nonnegative().nullable(),
  })
  .partial();

export type WidgetInput = z.infer<typeof widgetInput>;

/** A widget as the API shows it (its `notes` are the database's own, never shown). */
export type WidgetView = RecordView & Required<WidgetInput>;

/** What a test steers of the widgets' rules and of who calls. */
export interface WidgetSteer {
  /** Only widgets tagged `mine` are in sight (a restricted caller). */
  restricted: boolean;
  /** The lock hook refuses (409) a write whose input or patch gives this name. */
  refuseLockName?: string;
  /** beforeWrite refuses a widget with this name (400). */
  refuseName?: string;
  /** beforeWrite throws a plain Error (a bug, not a refusal) for a widget with this name. */
  crashName?: string;
  /** afterWrite throws a plain Error for an update that gives a widget this name (after its statement ran). */
  crashAfterName?: string;
  /** afterWrite refuses (400) an update that gives a widget this name. */
  refuseAfterName?: string;
  /** The widgets (by code) that afterWrite ran for, in call order. */
  afterWrites: string[];
  /** The widgets (by code) that afterDelete ran for. */
  afterDeletes: string[];
}

/** A steer with every rule off and an unrestricted caller. */
export function freshSteer(): WidgetSteer {
  return { restricted: false, afterWrites: [], afterDeletes: [] };
}

/** The widgets' resource, written by hand: its rules and audience read `steer` at each call. */
export function widgetResource(steer: WidgetSteer): RecordResource<WidgetEntity, WidgetView, WidgetInput> {
  return {
    collection: WIDGETS_COLLECTION,
    entity: WidgetEntity,
    schemas: { input: widgetInput, patch: widgetPatch },
    listDecl: declareResource({
      collection: WIDGETS_COLLECTION,
      fields: {
        _id: { type: 'id' },
        code: { type: 'string', searchable: true, normalized: true },
        name: { type: 'string', searchable: true },
        tags: { type: 'string[]' },
        data: { type: 'object' },
        price: { type: 'number' },
        created_at: { type: 'date' },
      },
    }),
    handle: 'code',
    columns: (input) => ({
      code: input.code,
      name: input.name,
      tags: input.tags ?? [],
      data: input.data ?? {},
      price: input.price ?? null,
      search_text: searchTextOf(input.code, input.name),
    }),
    searchText: (record) => searchTextOf(record.code, record.name),
    view: (r) => ({ code: r.code, name: r.name, tags: r.tags, data: r.data, price: r.price }),
    hooks: {
      async lock(_m, request) {
        const named = request.kind === 'create' ? request.input : request.kind === 'update' ? request.given : {};
        if (named.name !== undefined && named.name === steer.refuseLockName)
          throw new ConflictError(`The name '${String(named.name)}' is locked`);
      },
      async beforeWrite(_m, next) {
        if (next.name === steer.crashName) throw new Error(`widget '${next.code}' broke the rule`);
        if (next.name === steer.refuseName)
          throw new ValidationError(`A widget cannot be called '${next.name}'`, {
            details: [{ field: 'name', message: 'is refused' }],
          });
      },
      async afterWrite(_m, next) {
        steer.afterWrites.push(next.code);
        if (next.name === steer.crashAfterName) throw new Error(`widget '${next.code}' broke after its write`);
        if (next.name === steer.refuseAfterName)
          throw new ValidationError(`A widget cannot become '${next.name}'`, {
            details: [{ field: 'name', message: 'is refused after the write' }],
          });
      },
      async afterDelete(_m, record) {
        steer.afterDeletes.push(record.code);
      },
    },
    audience: async () =>
      steer.restricted ? { where: { sql: ':sight_tag = ANY(t.tags)', params: { sight_tag: MINE } } } : undefined,
  };
}

/** A stored widget row, as the table holds it. */
export interface WidgetRow {
  _id: string;
  code: string;
  name: string;
  tags: string[];
  data: Record<string, unknown>;
  price: number | null;
  notes: unknown[];
  version: number;
  deleted: boolean;
  deleted_at: Date | null;
  deleted_by: string | null;
  created_by_name: string | null;
}

/** A test file's widgets: their own database, a service over them, and readers of what is stored. */
export interface WidgetsFixture {
  db: TestDatabase;
  ds: DataSource;
  steer: WidgetSteer;
  service: RecordService<WidgetEntity, WidgetView, WidgetInput>;
  /** Every row (live and deleted) whose code is one of these, by code, oldest first. */
  rows(codes: readonly string[]): Promise<WidgetRow[]>;
  /** Every envelope in the outbox, in the order the relay publishes them (occurred_at, id). */
  events(): Promise<EventEnvelope<WidgetView & { deleted_at?: string; deleted_by?: string }>[]>;
  /** Empties the widgets and the outbox and turns every rule off. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

function options(url: string): AppDataSourceOptions {
  return {
    url,
    schema: WIDGETS_SCHEMA,
    entities: [WidgetEntity, OutboxEvent, DeadLetter],
    migrations: [CreateWidgets1700000000000],
    poolSize: 12,
  };
}

/** Makes the widgets' database and service for one test file; `label` names the database. */
export async function startWidgets(label: string): Promise<WidgetsFixture> {
  const db = await createTestDatabase(label);
  await migrate(options(db.url));
  const ds = createDataSource(options(db.url));
  await ds.initialize();
  const steer = freshSteer();
  const service = new RecordService(ds, widgetResource(steer), { source: 'test' });
  return {
    db,
    ds,
    steer,
    service,
    rows: (codes) =>
      ds.query(
        `SELECT "_id", code, name, tags, data, price, notes, version, deleted, deleted_at, deleted_by, created_by_name
           FROM widgets WHERE code = ANY($1) ORDER BY code, created_at, "_id"`,
        [codes],
      ),
    events: async () =>
      (await ds.query(`SELECT envelope FROM outbox ORDER BY occurred_at, id`)).map(
        (r: { envelope: EventEnvelope<WidgetView> }) => r.envelope,
      ),
    async reset() {
      await ds.query(`TRUNCATE widgets, outbox`);
      for (const key of Object.keys(steer)) delete steer[key as keyof WidgetSteer];
      Object.assign(steer, freshSteer());
    },
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}

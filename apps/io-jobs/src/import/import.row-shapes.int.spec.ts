import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { attributes as apb, products as ppb, relations as rpb, taxonomy as tpb } from '@pim/contracts';
import { createDataSource, migrate } from '@pim/db';
import { ValidationError } from '@pim/errors';
import { createLogger, runWithContext, type Actor } from '@pim/logging';
import { RecordService } from '@pim/records';
import type { ImportInput, ImportView } from '@pim/resources';
import { createRpcClient } from '@pim/rpc';
import { LocalFileStorage } from '@pim/storage';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@pim/testing';
import { SCHEMA, dataSourceOptions } from '../data-source';
import type { ImportEntity } from '../entities/import.entity';
import { IO_JOBS_STORE } from '../io-jobs.records';
import { importTemplateRecord } from '../import-template/import-template.resource';
import { JobQueue, type QueueSpec } from '../jobs/job.queue';
import { catalogLink, type CatalogLink } from '../links/catalog.link';
import { ImportMoves } from './import.moves';
import { importRecord } from './import.resource';
import { ImportRunner } from './import.runner';
import { ImportUploads } from './import.upload';

const logger = createLogger({ service: 'row-shapes-import-test', level: 'silent' });
const G1 = 'aaaaaaaaaaaaaaaaaaaaaaa1';
const ANA = '6740a1b2c3d4e5f601234561';
/** A user whose users groups see catalog c1 only: `hidden` is out of her sight. */
const ana: Actor = { user_id: ANA, user_name: 'Ana', access: { user_id: ANA, all_products: false, groups: [G1] } };
const ELIGIBILITY_HEADER = 'code,product_name,relation,eligible,item_type,item_id,item_code,item_name,category_tree';

// Imports of the rows the per_attributes and eligibility_services exports write: attribute rows set
// one value each (merged per product into one bulk item), eligibility rows set a product's relation
// to exactly the items listed. Against a real Postgres and a real catalog process, batches of two
// rows, refusals, a run resumed from its first row (nothing written twice), and a restricted user.
describe('imports of attribute rows and eligibility rows (real Postgres, real catalog)', () => {
  let catalogDb: TestDatabase;
  let catalogProcess: AppProcess;
  let catalogSql: Client;
  let db: TestDatabase;
  let ds: DataSource;
  let dir: string;
  let queue: JobQueue;
  let catalog: CatalogLink;
  let products: ReturnType<typeof createRpcClient<ppb.ProductsServiceClient>>;
  let relations: ReturnType<typeof createRpcClient<rpb.ProductRelationsServiceClient>>;
  let imports: RecordService<ImportEntity, ImportView, ImportInput>;
  let uploads: ImportUploads;
  let runner: ImportRunner;
  const spec: QueueSpec = { name: 'imports', attempts: 1 };
  const ids: Record<string, string> = {};
  const closers: (() => void)[] = [];
  const templates = () => new RecordService(ds, importTemplateRecord, IO_JOBS_STORE);

  async function* messages(fileName: string, text: string, fields: Record<string, string>) {
    yield { part: { $case: 'start' as const, value: { file_name: fileName } } };
    yield { part: { $case: 'chunk' as const, value: Buffer.from(text) } };
    yield { part: { $case: 'fields' as const, value: fields } };
  }
  const upload = (lines: string[], fields: Record<string, string> = {}, actor?: Actor) => {
    const go = () => uploads.upload(messages('rows.csv', lines.join('\r\n') + '\r\n', fields));
    return actor ? runWithContext({ requestId: 'upload', actor }, go) : go();
  };

  async function run(id: string, actor?: Actor): Promise<ImportView> {
    const start = () => new ImportMoves(imports, queue, spec).start(id);
    await (actor ? runWithContext({ requestId: 'start', actor }, start) : start());
    await runner.run(id, true);
    return imports.get(id);
  }

  /** The import as a worker that died after its last write finds it: processing, at its first row, nothing counted. */
  async function rewind(id: string): Promise<ImportView> {
    await ds.query(
      `UPDATE "imports" SET "status" = 'processing', "next_row" = 2, "proccess_count" = 0, "commit_count" = 0,
         "errors_count" = 0, "finished_at" = NULL WHERE "_id" = $1`,
      [id],
    );
    await ds.query(`DELETE FROM "import_errors" WHERE "import_id" = $1`, [id]);
    await runner.run(id, true);
    return imports.get(id);
  }

  const refused = async (id: string): Promise<[number, string][]> =>
    (
      await ds.query(`SELECT row_number, problems FROM import_errors WHERE import_id = $1 ORDER BY row_number`, [id])
    ).map((r: { row_number: number; problems: string }) => [r.row_number, r.problems]);

  const product = async (code: string) => (await products.batchGetProducts({ ids: [], codes: [code] })).data[0];

  /** Every relation of the products, by `<code>:<type>`: its items' ids and its version. */
  async function relationsOf(...codes: string[]): Promise<Record<string, { items: string[]; version: number }>> {
    const found = (
      await relations.listProductRelations({
        query: {
          page: 1,
          limit: 100,
          skip: 0,
          sort: [],
          filters: [{ field: 'product_id', op: 'in', values: codes.map((c) => ids[c]) }],
          search: '',
          expand: [],
        },
      })
    ).data;
    const codeOf = new Map(codes.map((c) => [ids[c], c]));
    return Object.fromEntries(
      found.map((r) => [
        `${codeOf.get(r.product_id)}:${r.type}`,
        {
          items: (r[r.type as keyof rpb.ProductRelation] as rpb.ProductRelationItem[]).map((i) =>
            i.category_tree_id ? `${i.id}@${i.category_tree_id}` : i.id,
          ),
          version: r.version,
        },
      ]),
    );
  }

  beforeAll(async () => {
    catalogDb = await createTestDatabase('rowshapes_catalog');
    catalogProcess = await startAppProcess('catalog', catalogDb.url, { COMPLETENESS_WORKER: 'false' });
    catalogSql = new Client({ connectionString: catalogDb.url });
    await catalogSql.connect();
    const opts = { service: 'catalog', address: catalogProcess.address, deadlineMs: 10_000 };
    products = createRpcClient(ppb.ProductsServiceClient, opts);
    relations = createRpcClient(rpb.ProductRelationsServiceClient, opts);
    const groups = createRpcClient(apb.AttributeGroupsServiceClient, opts);
    const attributes = createRpcClient(apb.AttributesServiceClient, opts);
    const catalogs = createRpcClient(tpb.CatalogsServiceClient, opts);
    const trees = createRpcClient(tpb.CategoryTreesServiceClient, opts);
    const categories = createRpcClient(tpb.CategoriesServiceClient, opts);
    closers.push(
      () => products.close(),
      () => relations.close(),
      () => groups.close(),
      () => attributes.close(),
      () => catalogs.close(),
      () => trees.close(),
      () => categories.close(),
    );
    const group = (
      await groups.createAttributeGroup({ input: apb.AttributeGroupInput.fromPartial({ key: 'g', name: { en: 'G' } }) })
    ).data!;
    const attribute = (key: string, type: string, type_config?: Record<string, unknown>) =>
      attributes.createAttribute({
        input: apb.AttributeInput.fromPartial({
          key,
          name: { en: key },
          groups: [{ id: group.id, required: false }],
          type,
          ...(type_config ? { type_config } : {}),
          association: 'product',
          protected_by_lgpd: false,
        }),
      });
    await attribute('a_text', 'text', { max_length: 5 });
    await attribute('a_number', 'number');
    await attribute('story', 'textarea', { localizable: true });
    await attribute('when', 'datetime');
    const c1 = (
      await catalogs.createCatalog({ input: tpb.CatalogInput.fromPartial({ code: 'c1', name: { en: 'c1' } }) })
    ).data!.id;
    await catalogSql.query(`UPDATE catalog.catalogs SET user_groups = $1 WHERE _id = $2`, [[G1], c1]);
    for (const [code, type, seen] of [
      ['mug', 'simple', true],
      ['vase', 'simple', true],
      ['hidden', 'simple', false],
      ['install', 'service', true],
      ['gift-wrap', 'service', true],
    ] as const)
      ids[code] = (
        await products.createProduct({
          input: ppb.ProductInput.fromPartial({
            code,
            name: { en: code },
            type,
            attribute_groups: [group.id],
            attributes: code === 'mug' ? { story: { es: 'Historia' } } : {},
            catalogs: seen ? [{ id: c1, user_groups: [] }] : [],
          }),
        })
      ).data!.id;
    for (const code of ['main', 'web'])
      ids[code] = (
        await trees.createCategoryTree({ input: tpb.CategoryTreeInput.fromPartial({ code, name: { en: code } }) })
      ).data!.id;
    for (const [key, code, tree] of [
      ['kitchen', 'kitchen', 'main'],
      ['garden', 'garden', 'main'],
      ['patio', 'patio', 'web'],
    ])
      ids[key] = (
        await categories.createCategory({
          input: tpb.CategoryInput.fromPartial({ code, name: { en: code }, category_tree_id: ids[tree] }),
        })
      ).data!.id;
    // Relations the files leave alone, or name and refuse: they must stay as they are.
    for (const [code, type, items] of [
      ['vase', 'association', [{ id: ids.mug }]],
      ['vase', 'eligible_service_products', [{ id: ids['gift-wrap'] }]],
    ] as const)
      await relations.createProductRelation({
        input: { ...rpb.ProductRelationInput.fromPartial({ type, product_id: ids[code] }), [type]: [...items] },
      });

    catalog = catalogLink(catalogProcess.address);
    db = await createTestDatabase('rowshapes');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    dir = await mkdtemp(join(tmpdir(), 'pim-row-shapes-'));
    const storage = new LocalFileStorage(dir);
    queue = new JobQueue({ url: db.url, schema: SCHEMA, heartbeatSeconds: 10, superviseSeconds: 60, logger });
    await queue.start([spec]);
    imports = new RecordService(ds, importRecord({ storage, catalog }), IO_JOBS_STORE);
    uploads = new ImportUploads(imports, storage, 1_000_000);
    runner = new ImportRunner({ ds, imports, storage, catalog, batchSize: 2, logger });
  });

  afterAll(async () => {
    for (const close of closers) close();
    catalog?.close();
    await queue?.stop(1_000);
    await ds?.destroy();
    await db?.drop();
    await catalogSql?.end();
    await catalogProcess?.stop();
    await catalogDb?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('attribute rows: map themselves, set one value each, merged per product; a refusal takes the product’s rows', async () => {
    const up = await upload([
      'code,attribute_key,attribute_name,language,value (America/Sao_Paulo)',
      'mug,a_number,N,,"1.234,5"',
      'mug,story,S,en,Story',
      'mug,story,S,pt,História',
      'mug,when,W,,2024-02-01 10:20:30',
      'vase,a_number,N,,7',
      'vase,a_text,T,,too long',
      'ghost,a_text,T,,abc',
      'mug,a_text,T,,abc',
    ]);
    expect(up).toMatchObject({
      status: 'mapped',
      mapped_headers: { A: 'code', B: 'attribute_key', C: 'attribute_name', D: 'language', E: 'value' },
    });
    const vaseBefore = await product('vase');
    const done = await run(up._id);
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      rows_count: 8,
      proccess_count: 8,
      commit_count: 5,
      errors_count: 3,
    });
    const mug = await product('mug');
    expect(mug.attributes).toEqual({
      a_number: 1234.5,
      // Each row set its language; the one stored and not in the file stays.
      story: { en: 'Story', pt: 'História', es: 'Historia' },
      when: '2024-02-01T13:20:30.000Z',
      a_text: 'abc',
    });
    expect((await product('vase')).version).toBe(vaseBefore.version);
    expect(await refused(up._id)).toEqual([
      [6, "not stored: row 7, another value of product 'vase', was refused (a product's rows are stored together)"],
      [7, expect.stringMatching(/^E \(value \(America\/Sao_Paulo\)\): .*5/)],
      [
        8,
        "A (code): no product has the code 'ghost' (attribute rows change existing products; create it with one row per product first)",
      ],
    ]);

    // A worker that died after the catalog wrote every batch: the job resumes from the first row,
    // the catalog answers each batch from its ledger, and nothing is written twice.
    expect(await rewind(up._id)).toMatchObject({
      status: 'completed_with_errors',
      proccess_count: 8,
      commit_count: 5,
      errors_count: 3,
    });
    expect((await product('mug')).version).toBe(mug.version);
    expect(await refused(up._id)).toHaveLength(3);
  });

  it('eligibility rows: each named relation becomes exactly the items listed, others stay; an export imports back changing nothing', async () => {
    const template = await templates().create({
      name: 'eligibility',
      mapped_headers: Object.fromEntries(ELIGIBILITY_HEADER.split(',').map((h) => [h, h])),
    });
    const lines = [
      ELIGIBILITY_HEADER,
      'mug,Mug,eligible_service_products,true,product,,install,Installation,',
      'mug,Mug,eligible_service_products,true,product,,gift-wrap,Gift wrap,',
      'mug,Mug,ineligible_service_categories,false,category,,patio,patio,web',
      `vase,Vase,eligible_service_categories,true,category,${ids.kitchen},,kitchen,`,
      'vase,Vase,eligible_service_products,true,product,,ghost,,',
      'vase,Vase,eligible_service_products,true,product,,install,,',
      'mug,Mug,eligible_service_products,true,product,,vase,,',
    ];
    const before = await relationsOf('mug', 'vase');
    const up = await upload(lines, { from_template_id: template._id });
    expect(up).toMatchObject({ status: 'mapped', template: { name: 'eligibility' } });
    expect(Object.keys(up.mapped_headers)).toHaveLength(9);
    expect(await run(up._id)).toMatchObject({
      status: 'completed_with_errors',
      proccess_count: 7,
      commit_count: 4,
      errors_count: 3,
    });
    const after = await relationsOf('mug', 'vase');
    expect(after).toEqual({
      'mug:eligible_service_products': { items: [ids.install, ids['gift-wrap']], version: 1 },
      // An ineligible category is kept with its tree.
      'mug:ineligible_service_categories': { items: [`${ids.patio}@${ids.web}`], version: 1 },
      'vase:eligible_service_categories': { items: [ids.kitchen], version: 1 },
      // Named, refused: as it was. Not named: as it was.
      'vase:eligible_service_products': before['vase:eligible_service_products'],
      'vase:association': before['vase:association'],
    });
    expect(await refused(up._id)).toEqual([
      [6, "G (item_code): no product has the code 'ghost'"],
      [
        7,
        "not stored: row 6, another item of product 'vase' eligible_service_products, was refused (a relation's items are set from all its rows at once)",
      ],
      [
        8,
        "C (relation): rows 2–3 set the items of product 'mug' eligible_service_products already: the rows of one product's relation must follow one another (at most 1,000), so move this row beside them and import them together",
      ],
    ]);

    // Resumed from its first row after a crash: every relation read equal, nothing written.
    expect(await rewind(up._id)).toMatchObject({ proccess_count: 7, commit_count: 4, errors_count: 3 });
    expect(await relationsOf('mug', 'vase')).toEqual(after);

    // The file of what is stored, as an export writes it, imported again: no relation changes.
    const same = await upload(lines.slice(0, 5), { from_template_id: template._id });
    expect(await run(same._id)).toMatchObject({ status: 'completed', commit_count: 4, errors_count: 0 });
    expect(await relationsOf('mug', 'vase')).toEqual(after);

    // The same items in another order are another list: the relation is replaced, at a new version.
    const reordered = await upload([lines[0], lines[2], lines[1]], { from_template_id: template._id });
    expect(await run(reordered._id)).toMatchObject({ status: 'completed', commit_count: 2 });
    expect((await relationsOf('mug'))['mug:eligible_service_products']).toEqual({
      items: [ids['gift-wrap'], ids.install],
      version: 2,
    });
  });

  it('writes as the user who started it: a product out of their sight is no product', async () => {
    const attributeRows = await upload(
      ['code,attribute_key,language,value', 'hidden,a_text,,abc', 'mug,a_text,,def'],
      {},
      ana,
    );
    expect(await run(attributeRows._id, ana)).toMatchObject({ commit_count: 1, errors_count: 1 });
    expect(await refused(attributeRows._id)).toEqual([
      [2, expect.stringMatching(/^A \(code\): no product has the code 'hidden'/)],
    ]);
    expect((await product('hidden')).attributes ?? {}).toEqual({});
    expect((await product('mug')).attributes).toMatchObject({ a_text: 'def' });

    const eligibility = await upload(
      [
        'code,relation,item_code',
        'hidden,eligible_service_products,install',
        'vase,ineligible_service_products,hidden',
        'vase,ineligible_service_products,install',
      ],
      {},
      ana,
    );
    expect(eligibility.mapped_headers).toEqual({ A: 'code', B: 'relation', C: 'item_code' });
    expect(await run(eligibility._id, ana)).toMatchObject({ commit_count: 0, errors_count: 3 });
    expect(await refused(eligibility._id)).toEqual([
      [2, "A (code): no product has the code 'hidden'"],
      [3, "C (item_code): no product has the code 'hidden'"],
      [4, expect.stringMatching(/^not stored: row 3/)],
    ]);
    expect(await relationsOf('hidden', 'vase')).not.toHaveProperty('vase:ineligible_service_products');
  });

  it('refuses a mapping of two row shapes, or of a shape without its columns, and a catalog for eligibility rows', async () => {
    const up = await upload(['code,attribute_key,value,name.en,relation', 'mug,a_text,x,Mug,']);
    // Its own headers map themselves, the column of another shape left out and said.
    expect(up.mapped_headers).toEqual({ A: 'code', B: 'attribute_key', C: 'value' });
    expect(up.logs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Column D \(name\.en\) was not mapped: 'name\.en' is a column of product rows/),
        expect.stringMatching(/^Column E \(relation\) was not mapped: 'relation' is a column of eligibility rows/),
      ]),
    );
    const mixed = await imports
      .patch(up._id, { mapped_headers: { A: 'code', B: 'attribute_key', C: 'value', D: 'name.en' } })
      .catch((e: unknown) => e);
    expect(mixed).toBeInstanceOf(ValidationError);
    expect((mixed as ValidationError).details).toEqual([
      {
        field: 'mapped_headers.D',
        message: expect.stringMatching(/but columns B and C \(attribute_key and value\) make this file attribute rows/),
      },
    ]);
    // Without value, attribute_key and language are no shape's: left out at upload, refused by hand.
    const noValue = await upload(['code,attribute_key,language', 'mug,a_text,']);
    expect(noValue.mapped_headers).toEqual({ A: 'code' });
    expect(noValue.logs).toContain(
      "Column B (attribute_key) was not mapped: 'attribute_key' is a column of attribute rows (one row per product and attribute value), which need columns mapped to attribute_key and value (no column is mapped to value)",
    );
    const partial = await imports
      .patch(noValue._id, { mapped_headers: { A: 'code', B: 'attribute_key' } })
      .catch((e: unknown) => e);
    expect((partial as ValidationError).details).toEqual([
      { field: 'mapped_headers.B', message: expect.stringMatching(/\(no column is mapped to value\)$/) },
    ]);

    // A category's tree, when the file names it, must be its tree.
    const otherTree = await upload([
      'code,relation,item_code,category_tree',
      'mug,eligible_service_categories,patio,main',
    ]);
    expect(await run(otherTree._id)).toMatchObject({ commit_count: 0, errors_count: 1 });
    expect(await refused(otherTree._id)).toEqual([
      [2, "C (item_code): no category of tree 'main' has the code 'patio'"],
    ]);

    const c1 = (await catalogSql.query(`SELECT _id FROM catalog.catalogs WHERE code = 'c1'`)).rows[0]._id as string;
    const withCatalog = await upload(['code,relation,item_code', 'mug,eligible_service_products,install'], {
      catalog_id: c1,
    }).catch((e: unknown) => e);
    expect(withCatalog).toBeInstanceOf(ValidationError);
    expect((withCatalog as ValidationError).details).toEqual([
      {
        field: 'catalog_id',
        message: 'is for imports that write products; eligibility rows write product relations only',
      },
    ]);
  });
});

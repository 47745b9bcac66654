import { isDeepStrictEqual } from 'node:util';
import type { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';
import { ConflictError, ValidationError, fromZodError, type WireErrorObject } from '@pim/errors';
import { newId } from '@pim/ids';
import { authorName, currentContext } from '@pim/logging';
import { lockStrings, transactionRetryingDeadlocks } from '@pim/db';
import { recordEvents } from '@pim/events';
import {
  BULK_MAX_ITEMS,
  productSchemas,
  type BulkItemResult,
  type ProductInput,
  type ProductView,
} from '@pim/resources';
import type { RecordService } from '@pim/records';
import { CATALOG_STORE } from '../catalog.records';
import { ProductEntity } from '../entities/product.entity';
import { checkProduct, type BatchClaims } from './product.rules';
import { loadWorld } from './product.world';
import { liveProductsByCodeForUpdate, writeProductBatch } from '../repositories/products.repository';
import { localizableTextKeys } from '../repositories/attributes.repository';
import { batchResults, forgetBatches, recordBatch, takeBatch } from '../repositories/applied-batches.repository';
import { CODE_LOCK, productColumns, productProblemsError } from './product.resource';
import { currentSight, hiddenNamed, keepHidden, outOfSight, seesCatalogs } from '../access/product-sight';

const ATTEMPTS = 3;
/** How long a batch id is remembered: far longer than any import takes to resume after a crash. */
export const BATCH_RETENTION_MS = 7 * 24 * 3_600_000;
/** Every this many batches, a replica forgets expired ones (a bounded delete, never a scan of all). */
const FORGET_EVERY = 100;

/** The error of an item as its result carries it: links unwritten, for the gateway to write its paths. */
const itemError = (err: { toWire(): WireErrorObject }) => err.toWire();

interface Pending {
  index: number;
  input: ProductInput;
  /** In a merge: the item as given, checked once merged onto the stored product. */
  raw?: Record<string, unknown>;
}

/** How a bulk upsert treats a product that exists. */
export interface BulkOptions {
  /** Makes the call safe to resend: see `upsert`. */
  batchId?: string;
  /**
   * Fields the item omits keep their stored values and `attributes` are merged key by key (an
   * import's row sets the columns it maps, nothing else); a new product without a type is simple.
   * By default an item is the whole product.
   */
  merge?: boolean;
}

const WRITABLE = Object.keys(productSchemas.input.shape);
/** What a merged item must have before it meets its stored product: its code. */
const mergeItemSchema = z.looseObject({ code: productSchemas.input.shape.code });

/**
 * Bulk upsert by `code` (docs/platform/rules.md: REST shape), set based: the whole batch's records, attributes,
 * options and unique values are read in a fixed number of queries, every item is checked in
 * memory, then the new ones are written with one COPY, the replaced ones with one INSERT … ON
 * CONFLICT, and their events with one COPY into the outbox. A bad item fails alone; the others
 * commit together.
 */
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export class ProductBulkUpsert {
  private batches = 0;

  constructor(
    private readonly ds: DataSource,
    private readonly products: RecordService<ProductEntity, ProductView, ProductInput>,
  ) {}

  /**
   * One result per item, in the order given. With a `batchId` the call is safe to resend: the
   * first one writes and records each item's outcome in the same transaction; a later one with
   * the same id writes nothing and answers the recorded outcomes (statuses and errors, no ids).
   */
  async upsert(items: unknown[], opts: BulkOptions = {}): Promise<BulkItemResult[]> {
    const { batchId } = opts;
    if (items.length > BULK_MAX_ITEMS) {
      throw new ValidationError(`At most ${BULK_MAX_ITEMS} products can be upserted at once, got ${items.length}`, {
        title: 'Too many items',
        solution: `Split the items into batches of at most ${BULK_MAX_ITEMS}`,
        details: [{ field: 'items', message: `must have at most ${BULK_MAX_ITEMS} items` }],
      });
    }
    const results: BulkItemResult[] = new Array(items.length);
    const pending: Pending[] = [];
    const firstAt = new Map<string, number>();
    items.forEach((raw, index) => {
      // A merge checks the item once merged onto the stored product; only its code is needed now.
      const parsed = opts.merge ? mergeItemSchema.safeParse(raw) : productSchemas.input.safeParse(raw);
      const code = typeof (raw as { code?: unknown })?.code === 'string' ? (raw as { code: string }).code : undefined;
      if (!parsed.success) {
        results[index] = {
          index,
          ...(code !== undefined ? { code } : {}),
          status: 'failed',
          error: itemError(fromZodError(parsed.error, { title: 'Invalid product' })),
        };
        return;
      }
      const earlier = firstAt.get(parsed.data.code);
      if (earlier !== undefined) {
        const err = new ValidationError(
          `The code '${parsed.data.code}' appears earlier in the batch (item ${earlier})`,
          {
            title: 'Duplicate code in batch',
            solution: 'Send each code once per batch',
            details: [{ field: 'code', message: `repeats item ${earlier}` }],
          },
        );
        results[index] = { index, code: parsed.data.code, status: 'failed', error: itemError(err) };
        return;
      }
      firstAt.set(parsed.data.code, index);
      pending.push({
        index,
        input: parsed.data as ProductInput,
        ...(opts.merge ? { raw: raw as Record<string, unknown> } : {}),
      });
    });
    if (batchId !== undefined) return this.writeOnce(batchId, items, results, pending);
    if (pending.length > 0) {
      for (const r of await this.write((m) => this.writeIn(m, pending))) results[r.index] = r;
    }
    return results;
  }

  /** The batch written under its id, or the outcomes recorded when that id was applied before. */
  private async writeOnce(
    batchId: string,
    items: unknown[],
    results: BulkItemResult[],
    pending: Pending[],
  ): Promise<BulkItemResult[]> {
    const answer = await this.write(async (m) => {
      if (!(await takeBatch(m, batchId))) {
        return (await batchResults(m, batchId)).map((r, index) => {
          const code = (items[index] as { code?: unknown } | null)?.code;
          return {
            index,
            ...(typeof code === 'string' ? { code } : {}),
            status: r.status,
            ...(r.error !== undefined ? { error: r.error } : {}),
          } as BulkItemResult;
        });
      }
      const written = [...results];
      if (pending.length > 0) for (const r of await this.writeIn(m, pending)) written[r.index] = r;
      await recordBatch(
        m,
        batchId,
        written.map((r) => ({ status: r.status, ...(r.error !== undefined ? { error: r.error } : {}) })),
      );
      return written;
    });
    if (++this.batches % FORGET_EVERY === 0)
      await forgetBatches(this.ds.manager, new Date(Date.now() - BATCH_RETENTION_MS), 10_000);
    return answer;
  }

  /**
   * A stored product with the fields an item gave written onto it, attributes merged by key, and
   * the languages of a name, a description and a localizable text attribute merged by language (a
   * sheet with a `pt` column leaves `en` as it is); checked again as a whole.
   */
  private mergeOnto(
    prev: ProductEntity | undefined,
    given: Record<string, unknown>,
    localizable: ReadonlySet<string>,
  ): { ok: true; input: ProductInput } | { ok: false; error: ValidationError } {
    const stored = prev ? (this.products.toView(prev) as unknown as Record<string, unknown>) : {};
    const base = Object.fromEntries(WRITABLE.filter((k) => stored[k] !== undefined).map((k) => [k, stored[k]]));
    // A product a merge creates is simple unless the item says otherwise (an import's sheet may have no type column).
    if (!prev) base.type = 'simple';
    const before = (base.attributes ?? {}) as Record<string, unknown>;
    const attributes: Record<string, unknown> = { ...before };
    for (const [key, value] of Object.entries((given.attributes as Record<string, unknown>) ?? {})) {
      const old = before[key];
      attributes[key] =
        localizable.has(key) && isPlainObject(value) && isPlainObject(old) ? { ...old, ...value } : value;
    }
    // Names and descriptions too: a language the item gives is set, the others stay.
    const texts = Object.fromEntries(
      (['name', 'description'] as const)
        .filter((k) => isPlainObject(given[k]) && isPlainObject(base[k]))
        .map((k) => [k, { ...(base[k] as object), ...(given[k] as object) }]),
    );
    const parsed = productSchemas.input.safeParse({ ...base, ...given, ...texts, attributes });
    return parsed.success
      ? { ok: true, input: parsed.data }
      : { ok: false, error: fromZodError(parsed.error, { title: 'Invalid product' }) };
  }

  /** Whether a checked draft shows exactly what the stored product shows (its version and update time aside). */
  private sameProduct(prev: ProductEntity, draft: ProductEntity): boolean {
    const shown = (e: ProductEntity) => {
      const { version: _v, updated_at: _u, ...rest } = this.products.toView(e) as unknown as Record<string, unknown>;
      return rest;
    };
    return isDeepStrictEqual(shown(prev), shown(draft));
  }

  private write<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return transactionRetryingDeadlocks(this.ds, work, ATTEMPTS);
  }

  private async writeIn(m: EntityManager, pending: Pending[]): Promise<BulkItemResult[]> {
    const codes = pending.map((p) => p.input.code);
    // Same lock as single writes take, so a code is never created twice between the read and the insert.
    await lockStrings(m, CODE_LOCK, codes);
    const existing = await liveProductsByCodeForUpdate(m, codes);
    const prevByCode = new Map(existing.map((p) => [p.code, p]));
    const now = new Date();
    const actor = authorName();
    const merged: BulkItemResult[] = [];
    // A caller bound to a user: items may not name attributes hidden from them nor touch products they cannot see.
    const sight = await currentSight(m);
    // Merged items (an import's rows) merge a localizable text's languages: which attributes are such.
    const localizable = new Set(pending.some((p) => p.raw) ? await localizableTextKeys(m) : []);
    const refusal = (
      given: ProductInput,
      raw: Record<string, unknown> | undefined,
      prev: ProductEntity | undefined,
    ) => {
      if (!sight) return undefined;
      const hidden = hiddenNamed(sight, (raw ?? given).attributes);
      if (hidden) return hidden;
      if (prev && sight.restricted && !seesCatalogs(sight.restricted, prev.catalogs))
        return new ConflictError(`The code '${given.code}' is taken by a product outside your catalogs`, {
          title: 'Product outside your catalogs',
          solution: 'Use another code, or ask an administrator for access to the catalogs of that product',
          details: [{ field: 'code', message: 'names a product your users groups cannot see' }],
        });
      return undefined;
    };
    const drafts = pending.flatMap(({ index, input: given, raw }) => {
      const prev = prevByCode.get(given.code);
      const refused = refusal(given, raw, prev);
      if (refused) {
        merged.push({ index, code: given.code, status: 'failed', error: itemError(refused) });
        return [];
      }
      const input = raw ? this.mergeOnto(prev, raw, localizable) : { ok: true as const, input: given };
      if (!input.ok) {
        merged.push({ index, code: given.code, status: 'failed', error: itemError(input.error) });
        return [];
      }
      const next = Object.assign(new ProductEntity(), prev ?? {}, productColumns(input.input));
      if (sight) keepHidden(sight, next, prev);
      if (prev) {
        next.version = prev.version + 1;
      } else {
        Object.assign(next, {
          _id: newId(),
          version: 1,
          created_at: now,
          created_by_name: actor,
          deleted: false,
          deleted_at: null,
          deleted_by: null,
        });
      }
      next.updated_at = now;
      return [{ next, index }];
    });

    const world = await loadWorld(
      m,
      drafts.map((d) => d.next),
    );
    const claims: BatchClaims = new Map();
    const results: BulkItemResult[] = merged;
    const good: { entity: ProductEntity; action: 'created' | 'updated' }[] = [];
    drafts.forEach(({ next: draft, index }) => {
      const check = checkProduct(draft, world, claims, prevByCode.get(draft.code)?.product_id ?? null);
      if (!check.ok) {
        results.push({
          index,
          code: draft.code,
          status: 'failed',
          error: itemError(productProblemsError(draft.code, check.problems)),
        });
        return;
      }
      Object.assign(draft, check.derived);
      if (sight?.restricted && !seesCatalogs(sight.restricted, draft.catalogs)) {
        results.push({ index, code: draft.code, status: 'failed', error: itemError(outOfSight(draft.code)) });
        return;
      }
      const prev = prevByCode.get(draft.code);
      // An item that holds what is stored writes nothing: no new version, no event (an export imported back).
      if (prev && this.sameProduct(prev, draft)) {
        results.push({ index, code: draft.code, _id: draft._id, status: 'unchanged' });
        return;
      }
      const action = prev ? 'updated' : 'created';
      good.push({ entity: draft, action });
      results.push({ index, code: draft.code, _id: draft._id, status: action });
    });
    if (good.length === 0) return results;

    const views = good.map(({ entity }) => {
      const view = this.products.toView(entity);
      entity.rendered = JSON.stringify(view);
      return view;
    });
    await writeProductBatch(
      m,
      good.filter((g) => g.action === 'created').map((g) => g.entity),
      good.filter((g) => g.action === 'updated').map((g) => g.entity),
    );
    const ctx = currentContext();
    await recordEvents(
      m,
      good.map(({ action, entity }, i) => ({
        source: CATALOG_STORE.source,
        collection: 'products',
        action,
        data: views[i],
        dataJson: entity.rendered ?? undefined,
        actor: ctx?.actor ?? null,
        requestId: ctx?.requestId,
      })),
    );
    return results;
  }
}

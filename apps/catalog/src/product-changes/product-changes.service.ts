import { isDeadlock } from '@pim/db';
import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError, PimError, ValidationError, withLinks, type ErrorDetail } from '@pim/errors';
import { isId } from '@pim/ids';
import type { products as pb } from '@pim/contracts';
import { RetryWrite, type RecordService } from '@pim/records';
import type {
  ProductInput,
  ProductRelationInput,
  ProductRelationItem,
  ProductRelationView,
  ProductView,
} from '@pim/resources';
import type { ProductEntity } from '../entities/product.entity';
import type { ProductRelationEntity } from '../entities/relation.entity';
import { appliedChange, finishChange, takeChange } from '../repositories/applied-changes.repository';
import { liveCategoryTrees } from '../repositories/categories.repository';
import { lockLiveProduct } from '../repositories/products.repository';
import { relationKey } from '../relation/relation.resource';

/** The relation lists a change may touch (associations are not changed through approvals). */
const CHANGE_TYPES = [
  'kit_products',
  'kit_services',
  'eligible_service_products',
  'ineligible_service_products',
  'eligible_service_categories',
  'ineligible_service_categories',
] as const;
type ChangeType = (typeof CHANGE_TYPES)[number];

const KITS: readonly string[] = ['kit_products', 'kit_services'];
const ATTEMPTS = 3;

/** What an application answers: whether this call wrote the change, when it was written, and the product's version after it. */
export interface AppliedResult {
  applied_now: boolean;
  applied_at: string;
  product_version: number;
}

/** Problems of the request itself, named as the change request names its lists (`kit_products.0.quantity`). */
function requestProblems(req: pb.ApplyProductChangesRequest): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const id = (field: string, value: string | undefined) => {
    if (!isId(value ?? '')) problems.push({ field, message: 'must be 24 lowercase hexadecimal characters' });
  };
  id('change_id', req.change_id);
  id('product_id', req.product_id);
  id('product_approval', req.product_approval);
  if (Number.isNaN(Date.parse(req.approved_at ?? '')))
    problems.push({ field: 'approved_at', message: 'must be a date' });
  req.attribute_groups.forEach((g, i) => id(`attribute_groups.${i}`, g));
  const seen = new Set<string>();
  for (const change of req.relations) {
    if (!(CHANGE_TYPES as readonly string[]).includes(change.type) || seen.has(change.type)) {
      problems.push({ field: 'relations', message: `type '${change.type}' is unknown or given twice` });
      continue;
    }
    seen.add(change.type);
    const removed = new Set(change.disassociate.map((i) => i.id));
    change.associate.forEach((item, i) => {
      id(`${change.type}.${i}.id`, item.id);
      if (KITS.includes(change.type) && !(typeof item.quantity === 'number' && item.quantity > 0))
        problems.push({ field: `${change.type}.${i}.quantity`, message: 'must be above zero' });
      if (removed.has(item.id))
        problems.push({ field: `${change.type}.${i}.id`, message: `is also in disassociate_${change.type}` });
    });
    change.disassociate.forEach((item, i) => id(`disassociate_${change.type}.${i}.id`, item.id));
  }
  return problems;
}

/** An item as the relation of this type stores it. */
function storedItem(type: ChangeType, item: pb.ProductChangeItem): ProductRelationItem {
  if (KITS.includes(type)) return { id: item.id, quantity: item.quantity! };
  if (type === 'ineligible_service_categories') return { id: item.id, category_tree_id: item.category_tree_id! };
  return { id: item.id };
}

/** The relation's list after the change: removed ids gone, associated ones set (in place) or appended. */
function nextItems(type: ChangeType, current: ProductRelationItem[], change: pb.RelationChange): ProductRelationItem[] {
  const removed = new Set(change.disassociate.map((i) => i.id));
  const items = current.filter((i) => !removed.has(i.id));
  for (const a of change.associate) {
    const at = items.findIndex((i) => i.id === a.id);
    if (at >= 0) items[at] = storedItem(type, a);
    else items.push(storedItem(type, a));
  }
  return items;
}

const sameItems = (a: ProductRelationItem[], b: ProductRelationItem[]) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A relation's refusal with its fields renamed after the change request: the relation's list
 * index becomes the index of the associated item that put the id there.
 */
function renamed(err: unknown, change: pb.RelationChange, items: ProductRelationItem[]): unknown {
  if (!(err instanceof ValidationError) || !err.details) return err;
  const details = err.details.map((d) => {
    const m = /^(\w+)\.(\d+)\.(\w+)$/.exec(d.field);
    if (!m || m[1] !== change.type) return d;
    const at = change.associate.findIndex((a) => a.id === items[Number(m[2])]?.id);
    return at < 0 ? d : { ...d, field: `${change.type}.${at}.${m[3]}` };
  });
  return new ValidationError(err.message, { title: err.title, solution: err.solution, details });
}

/**
 * Applies change requests of other apps (approved product approvals) to one product at a time: the
 * relation lists, the attribute groups and the product's `product_approval` / `last_approval_at`,
 * in one transaction with the ledger row that makes it happen at most once per change id. Every
 * record is written through its own record service, so its rules and events are the usual ones; a
 * rule that refuses rolls the whole change back.
 */
export class ProductChanges {
  constructor(
    private readonly ds: DataSource,
    private readonly products: RecordService<ProductEntity, ProductView, ProductInput>,
    private readonly relations: RecordService<ProductRelationEntity, ProductRelationView, ProductRelationInput>,
  ) {}

  async apply(req: pb.ApplyProductChangesRequest): Promise<AppliedResult> {
    const problems = requestProblems(req);
    if (problems.length > 0) {
      throw new ValidationError(
        problems.length === 1
          ? `Change: ${problems[0].field} ${problems[0].message}`
          : `Change has ${problems.length} problems`,
        { title: 'Invalid change', details: problems },
      );
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ds.transaction((m) => this.applyIn(m, req));
      } catch (err) {
        const retry = err instanceof RetryWrite || isDeadlock(err);
        if (!retry || attempt >= ATTEMPTS || err instanceof PimError) throw err;
      }
    }
  }

  private async applyIn(m: EntityManager, req: pb.ApplyProductChangesRequest): Promise<AppliedResult> {
    if (!(await takeChange(m, req.change_id, req.product_id))) {
      const done = await appliedChange(m, req.change_id);
      return { applied_now: false, applied_at: done.applied_at.toISOString(), product_version: done.product_version };
    }
    if (!(await lockLiveProduct(m, req.product_id))) {
      throw new NotFoundError(`No product with _id '${req.product_id}': it was deleted or never existed`, {
        title: 'Product not found',
        ...withLinks((link) => `The change cannot apply; find the product in ${link({ collection: 'products' })}`),
        details: [{ field: 'product_id', message: `no live product has _id '${req.product_id}'` }],
      });
    }
    await this.checkTrees(m, req);
    const relations = this.relations.inTransaction(m);
    for (const change of req.relations) {
      const type = change.type as ChangeType;
      const [current] = await relations.batchGet([], [relationKey(req.product_id, type)]);
      const before = ((current as Record<string, unknown> | undefined)?.[type] ?? []) as ProductRelationItem[];
      const items = nextItems(type, before, change);
      try {
        if (!current && items.length > 0) await relations.create({ type, product_id: req.product_id, [type]: items });
        else if (current && items.length === 0) await relations.remove(current._id);
        else if (current && !sameItems(before, items))
          await relations.replace(current._id, { type, product_id: req.product_id, [type]: items });
      } catch (err) {
        throw renamed(err, change, items);
      }
    }
    const products = this.products.inTransaction(m);
    const product = await products.get(req.product_id);
    const groups = [...product.attribute_groups];
    for (const g of req.attribute_groups) if (!groups.includes(g)) groups.push(g);
    const written = await products.patch(req.product_id, {
      attribute_groups: groups,
      product_approval: req.product_approval,
      last_approval_at: new Date(req.approved_at).toISOString(),
    });
    const applied = { applied_at: new Date(), product_version: written.version };
    await finishChange(m, req.change_id, applied);
    return { applied_now: true, applied_at: applied.applied_at.toISOString(), product_version: written.version };
  }

  /** Eligible categories are stored without their tree: the tree the change names is checked here. */
  private async checkTrees(m: EntityManager, req: pb.ApplyProductChangesRequest): Promise<void> {
    const change = req.relations.find((c) => c.type === 'eligible_service_categories');
    if (!change) return;
    const trees = await liveCategoryTrees(
      m,
      change.associate.map((i) => i.id),
    );
    const details = change.associate.flatMap((item, i): ErrorDetail[] => {
      const tree = trees.get(item.id);
      if (tree === undefined || item.category_tree_id === undefined || tree === item.category_tree_id) return [];
      return [
        {
          field: `eligible_service_categories.${i}.category_tree_id`,
          message: `category '${item.id}' is in category tree '${tree}', not '${item.category_tree_id}'`,
        },
      ];
    });
    if (details.length > 0)
      throw new ValidationError(`Change: ${details[0].field} ${details[0].message}`, {
        title: 'Invalid change',
        solution: 'Name each category with the tree it is in',
        details,
      });
  }
}

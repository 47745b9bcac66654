import type { DataSource } from 'typeorm';
import { NotifiedLoop } from '@pim/db';
import { toPimError, type PimError } from '@pim/errors';
import type { Logger } from '@pim/logging';
import type { RecordService } from '@pim/records';
import {
  PROPOSED_CHANGES,
  type ProductApprovalApplication,
  type ProductApprovalInput,
  type ProductApprovalView,
  type ProposedList,
} from '@pim/resources';
import type { products as pb } from '@pim/contracts';
import type { ProductApprovalEntity } from '../entities/product-approval.entity';
import type { CatalogLink } from '../links/catalog.link';
import {
  APPLY_CHANNEL,
  claimDueApplications,
  deferApplication,
  nextApplicationDue,
} from '../repositories/product-approvals.repository';

/** How the appliers run. */
export interface ApplierOptions {
  dataSource: DataSource;
  logger: Logger;
  /** How long a taken application is one replica's before another may take it again. Default 30 s. */
  leaseMs?: number;
  /** Wait before calling a catalog that did not answer again. Default 2 s. */
  retryMs?: number;
  /** Longest wait between rounds when no NOTIFY comes. Default 5 s. */
  pollMs?: number;
}

/** Error kinds that are the catalog's answer about the change itself: recorded, not retried. */
const REFUSALS = new Set(['validation', 'not_found', 'conflict', 'precondition', 'authorization']);

/** What an application recorded: applied, refused (with the catalog's error), or not answered (to be tried again). */
export type ApplyOutcome =
  { status: 'applied' | 'failed'; view: ProductApprovalView } | { status: 'retry'; error: PimError };

type Service = RecordService<ProductApprovalEntity, ProductApprovalView, ProductApprovalInput>;

/** The catalog's request for an approval: its relation changes by type, its attribute groups and who approved it. */
export function changesRequest(record: ProductApprovalEntity): pb.ApplyProductChangesRequest {
  const byType = new Map<string, pb.RelationChange>();
  for (const [list, type] of Object.entries(PROPOSED_CHANGES) as [ProposedList, string][]) {
    const items = (record[list] ?? []) as { id: string; quantity?: number; category_tree_id?: string }[];
    if (items.length === 0) continue;
    const change = byType.get(type) ?? { type, associate: [], disassociate: [] };
    (list.startsWith('disassociate_') ? change.disassociate : change.associate).push(...items.map((i) => ({ ...i })));
    byType.set(type, change);
  }
  return {
    change_id: record._id,
    product_id: record.product_id,
    relations: [...byType.values()],
    attribute_groups: record.attribute_groups,
    product_approval: record._id,
    approved_at: (record.decided_at ?? new Date()).toISOString(),
  };
}

/**
 * Applies approved product approvals to the catalog: the saga's second step. The decision
 * committed `application.status = pending` (and its `approved` event) in one transaction; any
 * replica's applier takes a due one by lease, calls the catalog's ApplyProductChanges (applied at
 * most once per approval id, so a repeat after a crash writes nothing twice) and records the
 * outcome: `applied`, or `failed` with the catalog's error object (nothing was written there). A
 * catalog that does not answer is tried again after `retryMs`, forever: the change is approved.
 */
export class ProductApprovalApplier extends NotifiedLoop {
  private readonly leaseMs: number;
  private readonly retryMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly opts: ApplierOptions,
    private readonly service: Service,
    private readonly catalog: CatalogLink,
  ) {
    super({
      dataSource: opts.dataSource,
      channel: APPLY_CHANNEL,
      name: 'product approval applier',
      logger: opts.logger,
    });
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.retryMs = opts.retryMs ?? 2_000;
    this.pollMs = opts.pollMs ?? 5_000;
  }

  /** Calls the catalog for one approval and records what it answered. */
  async applyOne(id: string): Promise<ApplyOutcome> {
    const record = await this.opts.dataSource.manager.findOne(this.service.resource.entity, {
      where: { _id: id, deleted: false },
    });
    const recorded = (record?.application as ProductApprovalApplication | null)?.status;
    if (!record || recorded !== 'pending') {
      // Another call recorded the outcome first: answer that one.
      return { status: recorded === 'failed' ? 'failed' : 'applied', view: await this.service.get(id) };
    }
    let applied: pb.ApplyProductChangesResponse;
    try {
      applied = await this.catalog.applyChanges(changesRequest(record));
    } catch (err) {
      const error = toPimError(err);
      if (!REFUSALS.has(error.kind)) {
        this.opts.logger.warn({ err, product_approval: id }, 'catalog did not apply a product approval; trying again');
        await deferApplication(this.opts.dataSource, id, this.retryMs);
        return { status: 'retry', error };
      }
      const wire = error.toWire();
      const { view } = await this.record(id, {
        status: 'failed',
        error: {
          code: wire.code,
          title: wire.title,
          message: error.message,
          solution: error.solution,
          ...(wire.details ? { details: wire.details } : {}),
        },
      });
      return { status: 'failed', view };
    }
    const { view } = await this.record(id, { status: 'applied', applied_at: applied.applied_at });
    return { status: 'applied', view };
  }

  /** Stores the outcome unless another replica stored one first; an `updated` event with it. */
  private record(id: string, application: ProductApprovalApplication) {
    return this.service.mutate(id, undefined, (r) => {
      if ((r.application as ProductApprovalApplication | null)?.status !== 'pending') return false;
      r.application = application;
      r.apply_after = null;
    });
  }

  /** One round: every due application, one at a time; returns how many were taken. */
  private async round(): Promise<number> {
    this.wakeup.reset();
    const ids = await claimDueApplications(this.opts.dataSource, 50, this.leaseMs);
    for (const id of ids) {
      if (this.stopping) break;
      try {
        await this.applyOne(id);
      } catch (err) {
        this.opts.logger.error({ err, product_approval: id }, 'recording a product approval application failed');
      }
    }
    return ids.length;
  }

  protected async loop(): Promise<void> {
    while (!this.stopping) {
      let taken = 0;
      let wait = this.pollMs;
      try {
        taken = await this.round();
        const due = await nextApplicationDue(this.opts.dataSource);
        if (due !== null) wait = Math.min(wait, Math.max(50, due));
      } catch (err) {
        this.opts.logger.error({ err }, 'product approval applier round failed');
      }
      if (this.stopping) break;
      if (taken === 0) await this.wakeup.sleep(wait, true);
    }
  }
}

import { AuthorizationError, ConflictError, withLinks } from '@pim/errors';
import { currentContext } from '@pim/logging';
import type { RecordService } from '@pim/records';
import type {
  ProductApprovalDecision,
  ProductApprovalInput,
  ProductApprovalStep,
  ProductApprovalView,
} from '@pim/resources';
import type { ProductApprovalEntity } from '../entities/product-approval.entity';
import { notifyAppliers } from '../repositories/product-approvals.repository';
import type { ProductApprovalApplier } from './product-approval.applier';
import { currentStepOf } from './product-approval.resource';

type Service = RecordService<ProductApprovalEntity, ProductApprovalView, ProductApprovalInput>;
type Decision = ProductApprovalDecision['decision'];

const VERB: Record<Decision, string> = { approved: 'approve', rejected: 'reject' };

/** The caller's user: decisions are taken by users, so a key that names none cannot take one. */
function decider(): { user_id: string; user_name?: string } {
  const actor = currentContext()?.actor;
  if (!actor?.user_id) {
    throw new AuthorizationError('Only a user can approve or reject: the API key of this request is bound to no user', {
      title: 'No user',
      solution: 'Call with an API key bound to the user who decides (its user_id is an approver of the current step)',
    });
  }
  return actor.user_name ? { user_id: actor.user_id, user_name: actor.user_name } : { user_id: actor.user_id };
}

/** Checks that a decision may be taken now, by this user, at the approval's current step. */
function stepToDecide(record: ProductApprovalEntity, decision: Decision, userId: string): ProductApprovalStep {
  if (record.status !== 'pending') {
    throw new ConflictError(
      `Product approval '${record._id}' is ${record.status}, not pending: it cannot be ${decision} again`,
      {
        title: 'Product approval decided',
        solution: 'Only a pending product approval is approved or rejected; create a new one for another change',
        details: [{ field: 'status', message: `is ${record.status}; ${VERB[decision]} needs pending` }],
      },
    );
  }
  const steps = record.steps as ProductApprovalStep[];
  const current = record.current_step as { step_id: string } | null;
  const step = steps.find((s) => s.step_id === current?.step_id) ?? steps[0];
  if (!step.approvers.includes(userId)) {
    throw new AuthorizationError(
      `User '${userId}' is not an approver of step ${step.order} ('${step.name}') of product approval '${record._id}'`,
      {
        title: 'Not an approver',
        ...withLinks(
          (link) =>
            `Ask one of the step's approvers (steps[].approvers of ${link({ collection: 'product_approvals', id: record._id })}) to decide`,
        ),
        details: [
          { field: 'current_step', message: `step ${step.order} is decided by ${step.approvers.length} approver(s)` },
        ],
      },
    );
  }
  return step;
}

/**
 * Approve and reject: a decision by an approver of the current step, under the approval's row lock
 * and If-Match. An approval moves to its next step (`updated`), or after the last one to `approved`
 * (its `approved` event, and its application pending in the same transaction); a rejection ends it
 * (`rejected`, nothing applied). After an approval, the application is tried at once: the answer
 * shows it applied, or — when the catalog refused the changes — is a 409 carrying the catalog's
 * reasons (the approval stays approved and records the catalog's error object). A catalog that does not answer leaves it pending
 * for the appliers.
 */
export class ProductApprovalDecisions {
  constructor(
    private readonly service: Service,
    private readonly applier: ProductApprovalApplier,
  ) {}

  async approve(id: string, comment: string | undefined, expectedVersion?: number): Promise<ProductApprovalView> {
    const { view } = await this.decide(id, 'approved', comment, expectedVersion);
    if (view.status !== 'approved') return view;
    const outcome = await this.applier.applyOne(id);
    if (outcome.status === 'retry') return this.service.get(id);
    const error = outcome.view.application?.error;
    if (outcome.status === 'failed' && error) {
      // The approve request was right; the catalog's state refused the change: a conflict, with its reasons.
      throw new ConflictError(
        `Product approval '${id}' is approved, but the catalog refused its changes and nothing was applied: ${error.message}`,
        {
          title: 'Approved, not applied',
          solution: `${error.solution ?? 'Correct what the details name'}; then propose the changes that still apply in a new product approval`,
          ...(error.details ? { details: error.details } : {}),
        },
      );
    }
    return outcome.view;
  }

  async reject(id: string, comment: string | undefined, expectedVersion?: number): Promise<ProductApprovalView> {
    return (await this.decide(id, 'rejected', comment, expectedVersion)).view;
  }

  private decide(id: string, decision: Decision, comment: string | undefined, expectedVersion?: number) {
    const by = decider();
    return this.service.mutate(id, expectedVersion, async (r, m) => {
      const step = stepToDecide(r, decision, by.user_id);
      const now = new Date();
      const taken: ProductApprovalDecision = {
        step: step.step_id,
        order: step.order,
        decision,
        ...(comment ? { comment } : {}),
        by,
        at: now.toISOString(),
      };
      r.decisions = [...(r.decisions as ProductApprovalDecision[]), taken];
      const next = (r.steps as ProductApprovalStep[]).find((s) => s.order > step.order);
      if (decision === 'approved' && next) {
        r.current_step = currentStepOf(next);
        return true;
      }
      r.status = decision;
      r.current_step = null;
      r.decided_at = now;
      if (decision === 'rejected') return { event: 'rejected' };
      r.application = { status: 'pending' };
      r.apply_after = null;
      await notifyAppliers(m);
      return { event: 'approved' };
    });
  }
}

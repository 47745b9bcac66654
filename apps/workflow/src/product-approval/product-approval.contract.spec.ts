import { PROTO_FILES } from '@pim/contracts';
import { ProductApproval } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { ProductApprovalEntity } from '../entities/product-approval.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('product approvals contract: declaration, entity and proto messages', () => {
  it('ProductApproval agrees with ProductApprovalEntity and pim.workflow.v1.ProductApproval / ProductApprovalInput', () => {
    expect(
      contractProblems({
        declaration: ProductApproval,
        entity: ProductApprovalEntity,
        protoFile: PROTO_FILES.workflow,
        message: 'pim.workflow.v1.ProductApproval',
        inputMessage: 'pim.workflow.v1.ProductApprovalInput',
      }),
    ).toEqual([]);
  });
});

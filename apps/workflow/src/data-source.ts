import type { AppDataSourceOptions } from '@pim/db';
import { DeadLetter, OutboxEvent } from '@pim/events';
import { UsersGroupEntity } from './entities/users-group.entity';
import { WorkflowEntity } from './entities/workflow.entity';
import { WorkflowApprovalEntity } from './entities/workflow-approval.entity';
import { ProductApprovalEntity } from './entities/product-approval.entity';
import { migrations } from './migrations';

/** This app's schema. */
export const SCHEMA = 'workflow';

/** Persistence of the workflow app: its schema, entities and migrations. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [
      ProductApprovalEntity,
      WorkflowApprovalEntity,
      WorkflowEntity,
      UsersGroupEntity,
      OutboxEvent,
      DeadLetter,
    ],
    migrations,
    applicationName: 'pim-workflow',
  };
}

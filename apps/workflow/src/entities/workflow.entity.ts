import { Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Workflow } from '@pim/resources';

/** A workflow: the declared fields (`Workflow` in @pim/resources) and the common record columns. */
@Entity({ name: 'workflows' })
@Index('UQ_workflows_code_live', ['code'], { unique: true, where: 'deleted = false' })
@Index('IDX_workflows_created_at', ['created_at', '_id'])
// At most one live default: the write that makes one the default clears the previous one first.
@Index('UQ_workflows_default_live', ['default'], { unique: true, where: '"default" = true AND deleted = false' })
export class WorkflowEntity extends declaredEntity(Workflow, SearchableRecordEntity) {}

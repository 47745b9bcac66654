import { Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { ImportTemplate } from '@pim/resources';

/** An import template: the declared fields (`ImportTemplate` in @pim/resources) and the common record columns. */
@Entity({ name: 'import_templates' })
@Index('UQ_import_templates_name_live', ['name'], { unique: true, where: 'deleted = false' })
@Index('IDX_import_templates_created_at', ['created_at', '_id'])
export class ImportTemplateEntity extends declaredEntity(ImportTemplate, SearchableRecordEntity) {}

import { declaredRecord } from '@pim/records';
import { ImportTemplate } from '@pim/resources';
import { ImportTemplateEntity } from '../entities/import-template.entity';

/** Import templates on the record engine: named by their name, unique among live templates. */
export const importTemplateRecord = declaredRecord(ImportTemplate, {
  entity: ImportTemplateEntity,
  handle: 'name',
  handleTaken: (name) => `Another live import template is named '${String(name)}'`,
});

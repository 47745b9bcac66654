import type { EntityManager } from 'typeorm';
import { ImportTemplateEntity } from '../entities/import-template.entity';

// Every query over `import_templates` the record engine does not run.

/** A live import template, or null. */
export async function liveTemplate(m: EntityManager, id: string): Promise<ImportTemplateEntity | null> {
  return m.findOne(ImportTemplateEntity, { where: { _id: id, deleted: false } });
}

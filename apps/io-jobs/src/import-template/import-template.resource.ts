import { declaredRecord } from '@pim/records';
import { ImportTemplate, canonicalTimeZone } from '@pim/resources';
import { ImportTemplateEntity } from '../entities/import-template.entity';

/**
 * Import templates on the record engine: named by their name, unique among live templates; a time
 * zone kept in its canonical spelling (`america/sao_paulo` → `America/Sao_Paulo`).
 */
export const importTemplateRecord = declaredRecord(ImportTemplate, {
  entity: ImportTemplateEntity,
  handle: 'name',
  handleTaken: (name) => `Another live import template is named '${String(name)}'`,
  hooks: {
    beforeWrite(_m, next) {
      if (next.time_zone) next.time_zone = canonicalTimeZone(next.time_zone) ?? next.time_zone;
      return Promise.resolve();
    },
  },
});

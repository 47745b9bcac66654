import { Entity, Index } from 'typeorm';

/**
 * Declares a taxonomy table and the indexes every one has: code unique among live records, the
 * default sort, and (created by the migration, which TypeORM cannot describe) trigram search
 * over `search_text` and GIN on `tags`, both only over live records.
 */
export function TaxonomyTable(table: string): ClassDecorator {
  return (target) => {
    Entity({ name: table })(target);
    Index(`UQ_${table}_code_live`, ['code'], { unique: true, where: 'deleted = false' })(target);
    Index(`IDX_${table}_created_at`, ['created_at', '_id'])(target);
    Index(`IDX_${table}_search`, { synchronize: false })(target);
    Index(`IDX_${table}_tags`, { synchronize: false })(target);
  };
}

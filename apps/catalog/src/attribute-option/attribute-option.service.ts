import type { DataSource, EntityManager } from 'typeorm';
import { ValidationError } from '@pim/errors';
import { requireId } from '@pim/ids';
import type { ListQuery } from '@pim/query';
import type { AttributeOptionInput, AttributeOptionView } from '@pim/resources';
import type { RecordService } from '@pim/records';
import type { AttributeOptionEntity } from '../entities/attribute-option.entity';
import { optionValues } from '../repositories/attribute-options.repository';
import { optionsAttribute } from './attribute-option.resource';

type Options = RecordService<AttributeOptionEntity, AttributeOptionView, AttributeOptionInput>;

/**
 * Options of one attribute at a time: each call names the attribute (from the path), which must
 * be a live select or multiselect attribute (404 / 400). Writes check it under a share lock (the
 * resource's lock hook); reads check it first so a wrong attribute is named as such.
 */
export class AttributeOptionsService {
  constructor(
    private readonly ds: DataSource,
    /** The unscoped record service (cascades and batch reads across attributes). */
    readonly records: Options,
  ) {}

  /** Creates an option of the attribute; its value must be free among the attribute's live options. */
  async create(attributeId: string, raw: unknown): Promise<AttributeOptionView> {
    return this.of(attributeId).create(raw);
  }

  /** One live option of the attribute. */
  async get(attributeId: string, id: string): Promise<AttributeOptionView> {
    return (await this.read(attributeId)).get(id);
  }

  /** Replaces every writable field of an option of the attribute. */
  async replace(attributeId: string, id: string, raw: unknown, expectedVersion?: number): Promise<AttributeOptionView> {
    return this.of(attributeId).replace(id, raw, expectedVersion);
  }

  /** Merge-patches an option of the attribute. */
  async patch(attributeId: string, id: string, raw: unknown, expectedVersion?: number): Promise<AttributeOptionView> {
    return this.of(attributeId).patch(id, raw, expectedVersion);
  }

  /** Soft-deletes an option of the attribute (409 while products use its value). */
  async remove(attributeId: string, id: string, expectedVersion?: number): Promise<AttributeOptionView> {
    return this.of(attributeId).remove(id, expectedVersion);
  }

  /** A page of the attribute's live options. */
  async list(attributeId: string, query: ListQuery): Promise<{ data: AttributeOptionView[]; total: number }> {
    return (await this.read(attributeId)).list(query);
  }

  /**
   * Live options by ids (of any attribute, or of one when `attributeId` is given) and by values of
   * one attribute (values are unique per attribute only), ordered by `_id`.
   */
  async batchGet(ids: string[], attributeId: string | undefined, values: string[]): Promise<AttributeOptionView[]> {
    if (attributeId === undefined || attributeId === '') {
      if (values.length > 0) {
        throw new ValidationError(
          'Option values are unique per attribute: name the attribute to read options by value',
          {
            title: 'Attribute needed',
            solution: 'Send attribute_id with values, or read by ids',
            details: [{ field: 'attribute_id', message: 'is required with values' }],
          },
        );
      }
      return this.records.batchGet(ids, []);
    }
    requireId(attributeId, 'attribute', 'attribute_id');
    return this.records.within({ attribute_id: attributeId }).batchGet(ids, values);
  }

  /** The live option values of each attribute (for checking product values), in one query. */
  async valuesOf(attributeIds: string[], m: EntityManager = this.ds.manager): Promise<Map<string, string[]>> {
    return optionValues(m, attributeIds);
  }

  private of(attributeId: string): Options {
    requireId(attributeId, 'attribute', 'attribute_id');
    return this.records.within({ attribute_id: attributeId });
  }

  private async read(attributeId: string): Promise<Options> {
    const options = this.of(attributeId);
    await optionsAttribute(this.ds.manager, attributeId);
    return options;
  }
}

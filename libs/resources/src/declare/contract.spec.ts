import { Column, Entity, PrimaryColumn } from 'typeorm';
import { z } from 'zod';
import { PROTO_FILES } from '@pim/contracts';
import { contractProblems } from '@pim/testing';
import { field } from './field';
import { defineResource } from './resource';

// A drifted copy of the webhook: the checker must name every disagreement.
@Entity({ name: 'drifted_webhooks' })
class DriftedWebhookEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;
  @Column({ type: 'text' })
  collection!: string;
  /** Not nullable, though the field may be unset. */
  @Column({ type: 'text' })
  url!: string;
  /** A boolean field in a text column. */
  @Column({ type: 'text' })
  enabled!: string;
}

const Drifted = defineResource({
  collection: 'webhooks',
  schemaId: 'DriftedWebhook',
  description: 'Drifted webhook',
  fields: {
    collection: field.of('string', { input: z.string() }).required(),
    url: field.of('string', { input: z.string() }),
    enabled: field.of('boolean', { input: z.boolean() }).default(true),
    /** Declared, but neither in the entity nor in the messages. */
    secretive: field.of('number', { input: z.number() }).required(),
  },
});

describe('contractProblems', () => {
  const problems = contractProblems({
    declaration: Drifted,
    entity: DriftedWebhookEntity,
    protoFile: PROTO_FILES.webhooks,
    message: 'pim.webhooks.v1.Webhook',
    inputMessage: 'pim.webhooks.v1.WebhookInput',
  });

  it('names a column whose nullability or type disagrees with the field', () => {
    expect(problems).toContain('webhooks.url: column is not nullable, but the field may be unset');
    expect(problems).toContain('webhooks.enabled: boolean field in a text column');
  });

  it('names a field missing from the entity and from both messages', () => {
    expect(problems).toContain('webhooks.secretive: the entity has no column secretive');
    expect(problems).toContain('webhooks.secretive: pim.webhooks.v1.Webhook has no field secretive');
    expect(problems).toContain('webhooks.secretive: pim.webhooks.v1.WebhookInput has no field secretive');
  });

  it('names message fields the declaration lacks', () => {
    expect(problems).toContain('webhooks: pim.webhooks.v1.Webhook.headers is not declared');
    expect(problems).toContain('webhooks: pim.webhooks.v1.WebhookInput.body is not declared');
  });

  it('finds nothing wrong in the fields that agree', () => {
    expect(problems.filter((p) => p.startsWith('webhooks.collection'))).toEqual([]);
  });
});

// A drifted copy of the product relation: lists without columns of their own, whose items share one message.
@Entity({ name: 'drifted_relations' })
class DriftedRelationEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;
  @Column({ type: 'text' })
  type!: string;
  @Column({ type: 'char', length: 24 })
  product_id!: string;
  /** A column for a list declared without one. */
  @Column({ type: 'jsonb' })
  kit_products!: unknown[];
}

const DriftedRelation = defineResource({
  collection: 'product_relations',
  schemaId: 'DriftedRelation',
  description: 'Drifted relation',
  fields: {
    type: field.of('string', { input: z.string() }).required(),
    product_id: field.of('id', { input: z.string() }).required(),
    /** Items with a field the item message lacks (and without quantity or category_tree_id). */
    kit_products: field
      .of('array', { input: z.array(z.strictObject({ id: z.string(), count: z.number() })).min(1) })
      .stored(false),
    /** An empty list is valid, yet an absent one travels empty. */
    association: field.of('array', { input: z.array(z.strictObject({ id: z.string() })) }).stored(false),
  },
});

describe('contractProblems on nested messages and fields without columns', () => {
  const problems = contractProblems({
    declaration: DriftedRelation,
    entity: DriftedRelationEntity,
    protoFile: PROTO_FILES.relations,
    message: 'pim.catalog.v1.ProductRelation',
    inputMessage: 'pim.catalog.v1.ProductRelationInput',
  });

  it('names a column the entity has for a field declared without one', () => {
    expect(problems).toContain(
      'product_relations.kit_products: declared without a column of its own, yet the entity has one',
    );
  });

  it('names a field of a declared shape its message lacks, and a message field no shape declares', () => {
    expect(problems).toContain(
      'product_relations.kit_products: pim.catalog.v1.ProductRelation.kit_products (ProductRelationItem) has no field count',
    );
    expect(problems).toContain(
      "product_relations: ProductRelationItem.category_tree_id is not declared in any field's shape",
    );
  });

  it('names an optional list that travels empty when absent, yet takes an empty value', () => {
    expect(problems).toContain(
      'product_relations.association: pim.catalog.v1.ProductRelationInput.association sends an absent value empty, yet an empty one is valid',
    );
    expect(problems.filter((p) => p.startsWith('product_relations.kit_products:') && p.includes('absent'))).toEqual([]);
  });

  it('lets a required boolean have presence in the input (false is a value), not a required string', () => {
    const required = defineResource({
      collection: 'webhooks',
      schemaId: 'RequiredFlagWebhook',
      description: 'Webhook whose flag is required',
      fields: {
        url: field.of('string', { input: z.string() }).required(),
        enabled: field.of('boolean', { input: z.boolean() }).required(),
      },
    });
    const found = contractProblems({
      declaration: required,
      entity: DriftedWebhookEntity,
      protoFile: PROTO_FILES.webhooks,
      message: 'pim.webhooks.v1.Webhook',
      inputMessage: 'pim.webhooks.v1.WebhookInput',
    });
    expect(found.filter((p) => p.includes('required, yet'))).toEqual([
      'webhooks.url: required, yet pim.webhooks.v1.WebhookInput.url is optional',
    ]);
  });
});

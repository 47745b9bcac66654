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

import { PROTO_FILES } from '@pim/contracts';
import { Webhook } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { WebhookEntity } from './webhook/webhook.entity';

// The webhook is declared once (libs/resources); its table and its messages must agree with the
// declaration in names, types and optionality.
describe('webhooks contract: declaration, entity and proto messages', () => {
  it('Webhook agrees with WebhookEntity and pim.webhooks.v1.Webhook / WebhookInput', () => {
    expect(
      contractProblems({
        declaration: Webhook,
        entity: WebhookEntity,
        protoFile: PROTO_FILES.webhooks,
        message: 'pim.webhooks.v1.Webhook',
        inputMessage: 'pim.webhooks.v1.WebhookInput',
      }),
    ).toEqual([]);
  });
});

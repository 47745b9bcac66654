import { loadSync } from '@grpc/proto-loader';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { webhookInputSchema, webhookSchema } from './webhooks';

// The REST schema (zod) and the gRPC message describe the same fields; this keeps them in step.
const pkg = loadSync(PROTO_FILES.webhooks, { includeDirs: [PROTO_ROOT], keepCase: true });
const fieldsOf = (message: string): string[] =>
  (pkg[message] as unknown as { type: { field: { name: string }[] } }).type.field.map((f) => f.name).sort();
const restToProto = (keys: string[]) => keys.map((k) => (k === '_id' ? 'id' : k)).sort();

describe('webhook contract: zod schema vs proto message', () => {
  it('Webhook has the same fields in REST and gRPC', () => {
    expect(restToProto(Object.keys(webhookSchema.shape))).toEqual(fieldsOf('pim.webhooks.v1.Webhook'));
  });

  it('WebhookInput has the same fields in REST and gRPC', () => {
    expect(restToProto(Object.keys(webhookInputSchema.shape))).toEqual(fieldsOf('pim.webhooks.v1.WebhookInput'));
  });
});

import { join } from 'node:path';

/** Root folder of the .proto sources (for reflection and dynamic loading). */
export const PROTO_ROOT = join(__dirname, '..', '..', '..', 'protos');

/** The .proto file that defines each package's services, relative to PROTO_ROOT. */
export const PROTO_FILES = {
  webhooks: 'pim/webhooks/v1/webhooks.proto',
  taxonomy: 'pim/catalog/v1/taxonomy.proto',
  attributes: 'pim/catalog/v1/attributes.proto',
  products: 'pim/catalog/v1/products.proto',
  relations: 'pim/catalog/v1/relations.proto',
  workflow: 'pim/workflow/v1/workflow.proto',
  orders: 'pim/orders/v1/orders.proto',
  ioJobs: 'pim/iojobs/v1/iojobs.proto',
  publisher: 'pim/publisher/v1/publisher.proto',
  deadLetters: 'pim/platform/v1/dead_letters.proto',
} as const;

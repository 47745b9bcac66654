// Generated contracts (ts-proto), one namespace per proto package. Regenerate with `npm run proto:generate`.
export * as common from './gen/pim/common/v1/common';
export * as webhooks from './gen/pim/webhooks/v1/webhooks';
export * as taxonomy from './gen/pim/catalog/v1/taxonomy';
export * as attributes from './gen/pim/catalog/v1/attributes';
export * as products from './gen/pim/catalog/v1/products';
export * as relations from './gen/pim/catalog/v1/relations';
export * as workflow from './gen/pim/workflow/v1/workflow';
export * as orders from './gen/pim/orders/v1/orders';
export * as ioJobs from './gen/pim/iojobs/v1/iojobs';
export * as publisher from './gen/pim/publisher/v1/publisher';
export * as deadLetters from './gen/pim/platform/v1/dead_letters';
export { PROTO_FILES, PROTO_ROOT } from './proto-files';

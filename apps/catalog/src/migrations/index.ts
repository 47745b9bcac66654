import { CreateTaxonomy1764633600000 } from './1764633600000-create-taxonomy';
import { CreateAttributes1764720000000 } from './1764720000000-create-attributes';
import { CreateProducts1764806400000 } from './1764806400000-create-products';
import { CreateProductRelations1764892800000 } from './1764892800000-create-product-relations';
import { ProductSearchFolded1765080000000 } from './1765080000000-product-search-folded';
import { ProductRenderedView1765238400000 } from './1765238400000-product-rendered-view';
import { OutboxEnvelopeJson1765238400001 } from './1765238400001-outbox-envelope-json';
import { CompletenessJobs1765324800000 } from './1765324800000-completeness-jobs';
import { AppliedChanges1795560000000 } from './1795560000000-applied-changes';
import { AppliedBatches1795570000000 } from './1795570000000-applied-batches';
import { OutboxDeadLetters1795800000000 } from './1795800000000-outbox-dead-letters';
import { IdempotentCalls1795900000000 } from './1795900000000-idempotent-calls';

/** Every migration of the catalog schema, oldest first. */
export const migrations = [
  CreateTaxonomy1764633600000,
  CreateAttributes1764720000000,
  CreateProducts1764806400000,
  CreateProductRelations1764892800000,
  ProductSearchFolded1765080000000,
  ProductRenderedView1765238400000,
  OutboxEnvelopeJson1765238400001,
  CompletenessJobs1765324800000,
  AppliedChanges1795560000000,
  AppliedBatches1795570000000,
  OutboxDeadLetters1795800000000,
  IdempotentCalls1795900000000,
];

import { CreateIoJobsSchema1795565720746 } from './1795565720746-create-io-jobs-schema';
import { CreateImports1795570100000 } from './1795570100000-create-imports';
import { CreateExports1795620000000 } from './1795620000000-create-exports';
import { AddRunAs1795700000000 } from './1795700000000-add-run-as';
import { OutboxDeadLetters1795800000000 } from './1795800000000-outbox-dead-letters';
import { IdempotentCalls1795900000000 } from './1795900000000-idempotent-calls';
import { FormulaQuote1796012400000 } from './1796012400000-formula-quote';
import { TimeZones1796100000000 } from './1796100000000-time-zones';
import { SearchFileNames1796100000001 } from './1796100000001-search-file-names';
import { Authors1796300000000 } from './1796300000000-authors';

/** Every migration of the io_jobs schema, oldest first. */
export const migrations = [
  CreateIoJobsSchema1795565720746,
  CreateImports1795570100000,
  CreateExports1795620000000,
  AddRunAs1795700000000,
  OutboxDeadLetters1795800000000,
  IdempotentCalls1795900000000,
  FormulaQuote1796012400000,
  TimeZones1796100000000,
  SearchFileNames1796100000001,
  Authors1796300000000,
];

export type { RecordClient } from '@pim/rpc';

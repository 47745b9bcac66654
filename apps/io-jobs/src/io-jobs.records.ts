import type { RecordStore } from '@pim/records';

/** How the io-jobs app's records are stored: its events come from `io-jobs`. */
export const IO_JOBS_STORE: RecordStore = { source: 'io-jobs' };

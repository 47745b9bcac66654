import type { RecordStore } from '@pim/records';

/** How the workflow app's records are stored: its events come from `workflow`. */
export const WORKFLOW_STORE: RecordStore = { source: 'workflow' };

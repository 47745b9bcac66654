import type { RecordStore } from '@pim/records';

/** How the orders app's records are stored: its events come from `orders`. */
export const ORDERS_STORE: RecordStore = { source: 'orders' };

import type { z } from 'zod';
import type { BatchLoader } from '../http/expand';
import type { Api } from '../http/route';
import { publisherRoutes } from './publisher.routes';
import { ioJobsRoutes } from './io-jobs.routes';
import { ordersRoutes } from './orders.routes';
import { workflowRoutes } from './workflow.routes';

/** List limits every list route takes. */
export interface ListLimits {
  maxLimit: number;
  defaultLimit: number;
  /** The largest upload in bytes, for routes that take files. */
  uploadMaxBytes?: number;
}

/** Records of other apps a list may expand (`expand=product`), by collection: how to load them and how they are shown. */
export interface RelatedRecords {
  loaders: Record<string, BatchLoader>;
  views: Record<string, z.ZodObject>;
}

/**
 * The routes of an owner app built on the platform kit, as the gateway serves them: how to make
 * its clients (from its address, read from `addressEnv`) and how to declare its routes against
 * them (looked up when a request arrives, so the document can be built without a connection).
 */
export interface OwnerRoutes {
  app: string;
  /** The environment variable with the app's gRPC address, and the address when it is unset. */
  addressEnv: string;
  defaultAddress: string;
  clients(opts: { address: string; deadlineMs: number }): { close(): void };
  routes(api: Api, clients: () => unknown, limits: ListLimits, related: RelatedRecords): void;
}

/**
 * Owner apps whose resources the gateway serves through the route factory. The resource generator
 * (`nx g @pim/generators:resource`) adds an app here with its first resource; the catalog and
 * webhooks predate it and are wired in `app.ts` by hand.
 */
export const OWNER_ROUTES: OwnerRoutes[] = [workflowRoutes, ordersRoutes, ioJobsRoutes, publisherRoutes];

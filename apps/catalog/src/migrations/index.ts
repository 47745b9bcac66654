import { CreateTaxonomy1764633600000 } from './1764633600000-create-taxonomy';

/** Every migration of the catalog schema, oldest first. */
export const migrations = [CreateTaxonomy1764633600000];

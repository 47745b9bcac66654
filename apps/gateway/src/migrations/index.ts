import { CreateGateway1763830800000 } from './1763830800000-create-gateway';

/** Every migration of the gateway schema, oldest first. */
export const migrations = [CreateGateway1763830800000];

import { CreateWorkflow1795482512541 } from './1795482512541-create-workflow';

/** Every migration of the workflow schema, oldest first. */
export const migrations = [CreateWorkflow1795482512541];

import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { readConfig, type WorkflowConfig } from './config';
import { dataSourceOptions } from './data-source';

/** The workflow app as the bootstrap runs it: it serves health (and reflection) until its first resource arrives. */
export const workflowApp: AppSpec<WorkflowConfig> = {
  name: 'workflow',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  grpc: { port: (c) => c.WORKFLOW_GRPC_PORT, protoFiles: [PROTO_FILES.workflow] },
  metricsPort: (c) => c.WORKFLOW_METRICS_PORT,
  wire: () => ({ services: [] }),
};

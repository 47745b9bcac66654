import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { readConfig, type CatalogConfig } from './config';
import { dataSourceOptions } from './data-source';
import { taxonomyGrpc, taxonomyServices } from './taxonomy.module';
import { attributeServices, attributesGrpc } from './attributes.module';
import { productServices, productsGrpc } from './products.module';
import { relationServices, relationsGrpc } from './relations.module';
import { CompletenessWorker } from './completeness/completeness.worker';
import { usersGroupsDirectory } from './links/users-groups.directory';

/** The catalog app as the bootstrap runs it: its four groups of services and the completeness worker. */
export const catalogApp: AppSpec<CatalogConfig> = {
  name: 'catalog',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  grpc: {
    port: (c) => c.CATALOG_GRPC_PORT,
    protoFiles: [PROTO_FILES.taxonomy, PROTO_FILES.attributes, PROTO_FILES.products, PROTO_FILES.relations],
  },
  metricsPort: (c) => c.CATALOG_METRICS_PORT,
  wire: ({ ds, logger, config }) => {
    // Users groups live in the workflow app: catalogs and attribute groups ask it about the ones they name.
    const usersGroups = usersGroupsDirectory(config.WORKFLOW_GRPC_URL);
    return {
      services: [
        ...taxonomyGrpc(taxonomyServices(ds, usersGroups), logger),
        ...attributesGrpc(attributeServices(ds, usersGroups), logger),
        ...productsGrpc(productServices(ds), logger),
        ...relationsGrpc(relationServices(ds), logger),
      ],
      loops: [config.COMPLETENESS_WORKER ? new CompletenessWorker({ dataSource: ds, logger }) : undefined],
      close: [() => usersGroups.close()],
    };
  },
};

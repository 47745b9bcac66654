import { CATALOG_STORE } from './catalog.records';
import type { DataSource } from 'typeorm';
import type { Logger } from '@pim/logging';
import type { ServiceRegistration } from '@pim/rpc';
import { RecordService } from '@pim/records';
import { attributeGroupResource } from './attribute-group/attribute-group.resource';
import { attributeGroupsGrpc } from './attribute-group/attribute-group.grpc';
import { attributeOptionResource } from './attribute-option/attribute-option.resource';
import { AttributeOptionsService } from './attribute-option/attribute-option.service';
import { attributeOptionsGrpc } from './attribute-option/attribute-option.grpc';
import { attributeResource } from './attribute/attribute.resource';
import { attributesGrpc as attributesServiceGrpc } from './attribute/attribute.grpc';
import { productUsage, type ProductUsage } from './repositories/products.repository';
import type { UsersGroupsDirectory } from './links/users-groups.directory';

/** The attribute groups, attributes and attribute options services over one DataSource; groups check their users groups in `directory`. */
export function attributeServices(ds: DataSource, directory: UsersGroupsDirectory, usage: ProductUsage = productUsage) {
  const options = new RecordService(ds, attributeOptionResource(usage), CATALOG_STORE);
  return {
    attributeGroups: new RecordService(ds, attributeGroupResource(directory), CATALOG_STORE),
    attributes: new RecordService(ds, attributeResource(options, usage), CATALOG_STORE),
    attributeOptions: new AttributeOptionsService(ds, options),
  };
}

/** The attribute services of one DataSource, by resource. */
export type AttributeServices = ReturnType<typeof attributeServices>;

/** Their gRPC services (pim.catalog.v1), ready for GrpcApp. */
export function attributesGrpc(services: AttributeServices, logger: Logger): ServiceRegistration[] {
  return [
    attributesServiceGrpc(services.attributes, logger),
    attributeOptionsGrpc(services.attributeOptions, logger),
    attributeGroupsGrpc(services.attributeGroups, logger),
  ];
}

import { workflow as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { UsersGroupInput, UsersGroupView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { UsersGroupEntity } from '../entities/users-group.entity';

/** gRPC handlers of pim.workflow.v1.UsersGroupsService. */
export function usersGroupsGrpc(
  service: RecordService<UsersGroupEntity, UsersGroupView, UsersGroupInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    mirrorCodec<UsersGroupView, pb.UsersGroup, pb.UsersGroupInput>(),
    logger,
    { one: 'UsersGroup', many: 'UsersGroups' },
    (req: pb.BatchGetUsersGroupsRequest) => req.names ?? [],
  );
  const implementation: pb.UsersGroupsServiceServer = {
    createUsersGroup: h.create,
    getUsersGroup: h.get,
    updateUsersGroup: h.update,
    patchUsersGroup: h.patch,
    deleteUsersGroup: h.delete,
    listUsersGroups: h.list,
    batchGetUsersGroups: h.batchGet,
  };
  return { name: 'pim.workflow.v1.UsersGroupsService', definition: pb.UsersGroupsServiceService, implementation };
}

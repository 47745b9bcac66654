import { workflow as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { UsersGroupInput, UsersGroupView } from '@pim/resources';
import { ValidationError } from '@pim/errors';
import { unary, type ServiceRegistration } from '@pim/rpc';
import type { DataSource } from 'typeorm';
import { usersGroupsRepository } from '../repositories/users-groups.repository';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { UsersGroupEntity } from '../entities/users-group.entity';

/** gRPC handlers of pim.workflow.v1.UsersGroupsService. */
export function usersGroupsGrpc(
  service: RecordService<UsersGroupEntity, UsersGroupView, UsersGroupInput>,
  ds: DataSource,
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
    getUserAccess: unary(logger, 'GetUserAccess', async (req: pb.GetUserAccessRequest) => {
      if (!/^[0-9a-f]{24}$/.test(req.user_id ?? ''))
        throw new ValidationError('user_id must be 24 lowercase hexadecimal characters', {
          details: [{ field: 'user_id', message: 'must be a user id' }],
        });
      return usersGroupsRepository.accessOf(ds.manager, req.user_id);
    }),
  };
  return { name: 'pim.workflow.v1.UsersGroupsService', definition: pb.UsersGroupsServiceService, implementation };
}

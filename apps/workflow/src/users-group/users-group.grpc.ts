import { workflow as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import { userIdSchema, type UsersGroupInput, type UsersGroupView } from '@pim/resources';
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
      // The user id as API keys store it (trimmed, NFC), so it finds the members' ids stored the same way.
      const userId = userIdSchema.safeParse(req.user_id ?? '');
      if (!userId.success)
        throw new ValidationError(`user_id ${userId.error.issues[0].message}`, {
          details: [{ field: 'user_id', message: userId.error.issues[0].message }],
        });
      return usersGroupsRepository.accessOf(ds.manager, userId.data);
    }),
  };
  return { name: 'pim.workflow.v1.UsersGroupsService', definition: pb.UsersGroupsServiceService, implementation };
}

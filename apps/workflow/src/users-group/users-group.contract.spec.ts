import { PROTO_FILES } from '@pim/contracts';
import { UsersGroup } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { UsersGroupEntity } from '../entities/users-group.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('users groups contract: declaration, entity and proto messages', () => {
  it('UsersGroup agrees with UsersGroupEntity and pim.workflow.v1.UsersGroup / UsersGroupInput', () => {
    expect(
      contractProblems({
        declaration: UsersGroup,
        entity: UsersGroupEntity,
        protoFile: PROTO_FILES.workflow,
        message: 'pim.workflow.v1.UsersGroup',
        inputMessage: 'pim.workflow.v1.UsersGroupInput',
      }),
    ).toEqual([]);
  });
});

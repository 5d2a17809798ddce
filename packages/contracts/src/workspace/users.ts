import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Uuid } from '../common/domain.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../common/pagination.js';
import { EmailAddress, Nullable } from './common.js';
import { Password, REQUEST_ROLES, USER_STATUSES } from './identity.js';

const Name = Type.String({ minLength: 1, maxLength: 100 });

export const CreateUserBody = Type.Object(
  {
    email: EmailAddress,
    password: Password,
    role: StringEnum(REQUEST_ROLES, { description: '`admin` or `client` (lower case).' }),
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Name),
    workspaceId: Type.Optional(
      Nullable(Uuid, { description: 'Workspace the user joins. An ADMIN may only name its own (the default when omitted).' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    email: Type.Optional(EmailAddress),
    password: Type.Optional(Password),
    firstName: Type.Optional(Nullable(Name)),
    lastName: Type.Optional(Nullable(Name)),
    role: Type.Optional(StringEnum(REQUEST_ROLES)),
    status: Type.Optional(StringEnum(USER_STATUSES)),
    workspaceId: Type.Optional(Nullable(Uuid, { description: '`null` removes the user from its workspace.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UpdateMeBody = Type.Object(
  { firstName: Type.Optional(Nullable(Name)), lastName: Type.Optional(Nullable(Name)) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMeBody = Static<typeof UpdateMeBody>;

export const ChangePasswordBody = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: 128 }), newPassword: Password },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const UserListQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
    workspaceId: Type.Optional(Uuid),
    role: Type.Optional(StringEnum(REQUEST_ROLES)),
    status: Type.Optional(StringEnum(USER_STATUSES)),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Part of the e-mail, first or last name.' })),
  },
  { additionalProperties: false },
);
export type UserListQuery = Static<typeof UserListQuery>;

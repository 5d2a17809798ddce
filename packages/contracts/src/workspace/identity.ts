import { type Static, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from '../common/domain.js';
import { EmailAddress, Nullable } from './common.js';

/** Roles as answers show them. SUPER_ADMIN operates Holdfast; ADMIN and CLIENT belong to a workspace. */
export const USER_ROLES = ['SUPER_ADMIN', 'ADMIN', 'CLIENT'] as const;
export type UserRole = (typeof USER_ROLES)[number];
/** The roles that administer a workspace (an ADMIN its own, a SUPER_ADMIN any): `roles` of many endpoints. */
export const ADMIN_ROLES: readonly UserRole[] = ['SUPER_ADMIN', 'ADMIN'];
/** Roles as requests write them (a SUPER_ADMIN is never created or granted through the API). */
export const REQUEST_ROLES = ['admin', 'client'] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];
export const USER_STATUSES = ['active', 'inactive', 'suspended'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
/** Which of its workspace's platforms a session works with (sandbox or production credentials). */
export const SESSION_ENVIRONMENTS = ['sandbox', 'production'] as const;
export type SessionEnvironment = (typeof SESSION_ENVIRONMENTS)[number];

/** Access tokens (Workspace JWTs) live one hour. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** Password policy of sign-up, user creation and password change. */
export const PASSWORD_POLICY = {
  minLength: 12,
  maxLength: 128,
  description: '12 to 128 characters with at least one upper-case letter, one lower-case letter, one number and one special character.',
} as const;

export const Password = Type.String({ minLength: 1, maxLength: PASSWORD_POLICY.maxLength, description: PASSWORD_POLICY.description });

export const UserRecord = Type.Object(
  {
    id: Uuid,
    email: Type.String({ format: 'email' }),
    firstName: Nullable(Type.String()),
    lastName: Nullable(Type.String()),
    role: StringEnum(USER_ROLES),
    status: StringEnum(USER_STATUSES),
    workspaceId: Nullable(Uuid),
    emailVerified: Type.Boolean(),
    avatarPath: Nullable(Type.String({ description: 'Path of the avatar image on this host (`/avatars/<file>`) or an https URL.' })),
    lastLoginAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a',
        email: 'ada@acme.example',
        firstName: 'Ada',
        lastName: 'Lovelace',
        role: 'ADMIN',
        status: 'active',
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        emailVerified: true,
        avatarPath: null,
        lastLoginAt: '2026-11-21T10:00:00.000Z',
        createdAt: '2026-11-20T09:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type UserRecord = Static<typeof UserRecord>;

export const SignupBody = Type.Object(
  {
    email: EmailAddress,
    password: Password,
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.String({ minLength: 1, maxLength: 100 }),
    companyName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    intendedUseCase: Type.Optional(Type.String({ maxLength: 2000 })),
    waitlistReason: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type SignupBody = Static<typeof SignupBody>;

export const SignupResult = Type.Object({
  user: UserRecord,
  verificationExpiresAt: DateTime,
  verificationCode: Type.Optional(
    Type.String({ description: 'The 6-digit code, returned only in `local` and `staging`; in production it is sent by e-mail only.' }),
  ),
});

export const VerifyCodeBody = Type.Object(
  { email: EmailAddress, code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit verification code.' }) },
  { additionalProperties: false },
);
export type VerifyCodeBody = Static<typeof VerifyCodeBody>;
export const VerifyCodeResult = Type.Object({ email: Type.String({ format: 'email' }), emailVerified: Type.Literal(true) });

export const ResendCodeBody = Type.Object({ email: EmailAddress }, { additionalProperties: false });
export const ResendCodeResult = Type.Object({
  message: Type.String(),
  verificationExpiresAt: Type.Optional(DateTime),
  verificationCode: Type.Optional(Type.String({ description: 'Returned only in `local` and `staging`.' })),
});

export const LoginBody = Type.Object(
  {
    email: EmailAddress,
    password: Type.String({ minLength: 1, maxLength: PASSWORD_POLICY.maxLength }),
    environment: Type.Optional(StringEnum(SESSION_ENVIRONMENTS, { description: 'Defaults to `sandbox`.' })),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const RefreshBody = Type.Object(
  {
    refreshToken: Type.String({ minLength: 1, maxLength: 512 }),
    environment: Type.Optional(StringEnum(SESSION_ENVIRONMENTS, { description: 'Switches the session; defaults to its current one.' })),
  },
  { additionalProperties: false },
);
export type RefreshBody = Static<typeof RefreshBody>;

export const LogoutBody = Type.Object({ refreshToken: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });
export type LogoutBody = Static<typeof LogoutBody>;

export const SessionTokens = Type.Object({
  user: UserRecord,
  accessToken: Type.String({ description: 'Workspace JWT; send as `Authorization: Bearer <accessToken>`.' }),
  refreshToken: Type.String({ description: 'Opaque, single use: each refresh returns a new one and retires this one.' }),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer({ description: 'Seconds until the access token expires (3600).' }),
  refreshTokenExpiresAt: DateTime,
  environment: StringEnum(SESSION_ENVIRONMENTS),
});
export type SessionTokens = Static<typeof SessionTokens>;

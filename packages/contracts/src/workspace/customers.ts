import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Metadata, StringEnum, Uuid } from '../common/domain.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../common/pagination.js';
import { EmailAddress, Nullable } from './common.js';
import { Password } from './identity.js';

// Workspace API: a workspace's customers (admin routes, workspace-scoped and global) and customer
// self-service (register, login, me, refresh, logout) with its workspace-bound customer JWT.
// docs/customers.md explains the rules; docs/customer-guide.md walks a customer through them.

export const CUSTOMER_STATUSES = ['active', 'inactive', 'suspended', 'pending'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];
export const CustomerStatusSchema = StringEnum(CUSTOMER_STATUSES);

/** A workspace's id (uuid) or its slug: how the customer self-service routes name the workspace. */
export const WorkspaceRefParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[A-Za-z0-9-]+$',
    description: 'The workspace id (uuid) or its slug.',
  }),
});

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Short = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });

/** The fields an administrator may give a customer (every one optional in an update). */
const CustomerFields = {
  externalId: Nullable(Short(255, "The workspace's own id for this customer; unique within the workspace.")),
  phoneNumber: Nullable(Type.String({ minLength: 3, maxLength: 32, pattern: '^\\+?[0-9 ()./-]{3,32}$' })),
  dateOfBirth: Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD.' })),
  address: Nullable(Short(255)),
  city: Nullable(Short(100)),
  state: Nullable(Short(100)),
  postalCode: Nullable(Short(32)),
  country: Nullable(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 code, e.g. DE (stored in upper case).' })),
  status: CustomerStatusSchema,
  metadata: Metadata,
};

export const CustomerRecord = Type.Object(
  {
    id: Uuid,
    workspaceId: Uuid,
    externalId: Nullable(Type.String()),
    email: Type.String({ format: 'email' }),
    firstName: Nullable(Type.String()),
    lastName: Nullable(Type.String()),
    phoneNumber: Nullable(Type.String()),
    dateOfBirth: Nullable(Type.String({ format: 'date' })),
    address: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
    postalCode: Nullable(Type.String()),
    country: Nullable(Type.String()),
    status: CustomerStatusSchema,
    walletAddress: Nullable(Type.String({ description: 'The wallet linked by the customer (SIWE) or created for it (CUSTODY_A).' })),
    walletLinkedAt: Nullable(DateTime),
    emailVerified: Type.Boolean({ description: 'Holdfast does not verify customer e-mail addresses in this version: always false.' }),
    hasPassword: Type.Boolean({ description: 'Whether the customer registered itself (and so can log in).' }),
    metadata: Metadata,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    $id: 'CustomerRecord',
    examples: [
      {
        id: '0193a3c2-7f10-7a55-9d1e-4c2b8e0f1a30',
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        externalId: 'cus_8812',
        email: 'grace@buyer.example',
        firstName: 'Grace',
        lastName: 'Hopper',
        phoneNumber: '+49 30 1234567',
        dateOfBirth: '1990-12-09',
        address: 'Unter den Linden 1',
        city: 'Berlin',
        state: null,
        postalCode: '10117',
        country: 'DE',
        status: 'active',
        walletAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        walletLinkedAt: '2026-11-22T10:05:00.000Z',
        emailVerified: false,
        hasPassword: true,
        metadata: {},
        createdAt: '2026-11-22T10:00:00.000Z',
        updatedAt: '2026-11-22T10:05:00.000Z',
      },
    ],
  },
);
export type CustomerRecord = Static<typeof CustomerRecord>;

/** The optional profile fields a customer is created and updated with. */
const OptionalProfile = {
  externalId: Type.Optional(CustomerFields.externalId),
  phoneNumber: Type.Optional(CustomerFields.phoneNumber),
  dateOfBirth: Type.Optional(CustomerFields.dateOfBirth),
  address: Type.Optional(CustomerFields.address),
  city: Type.Optional(CustomerFields.city),
  state: Type.Optional(CustomerFields.state),
  postalCode: Type.Optional(CustomerFields.postalCode),
  country: Type.Optional(CustomerFields.country),
};

/** POST /workspaces/{id}/customers. */
export const CreateCustomerBody = Type.Object(
  {
    email: EmailAddress,
    firstName: Name,
    lastName: Name,
    ...OptionalProfile,
    status: Type.Optional(StringEnum(CUSTOMER_STATUSES, { description: 'Defaults to `active`.' })),
    metadata: Type.Optional(CustomerFields.metadata),
  },
  { additionalProperties: false, $id: 'CreateCustomerBody' },
);
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

/** POST /customers: the same fields and the workspace. */
export const CreateGlobalCustomerBody = Type.Object(
  {
    workspaceId: Type.String({ format: 'uuid', description: 'The workspace the customer belongs to (an ADMIN: its own).' }),
    ...CreateCustomerBody.properties,
  },
  { additionalProperties: false, $id: 'CreateGlobalCustomerBody' },
);
export type CreateGlobalCustomerBody = Static<typeof CreateGlobalCustomerBody>;

/** PUT /customers/{id}: any create field except the workspace; `null` clears an optional one. */
export const UpdateCustomerBody = Type.Object(
  {
    email: Type.Optional(EmailAddress),
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Name),
    ...OptionalProfile,
    status: Type.Optional(CustomerFields.status),
    metadata: Type.Optional(CustomerFields.metadata),
  },
  { additionalProperties: false, minProperties: 1, $id: 'UpdateCustomerBody' },
);
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;

const ListFields = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
  status: Type.Optional(CustomerStatusSchema),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Part of the e-mail, first, last or full name.' })),
};

/** GET /workspaces/{id}/customers. */
export const WorkspaceCustomerListQuery = Type.Object(ListFields, { additionalProperties: false });
export type WorkspaceCustomerListQuery = Static<typeof WorkspaceCustomerListQuery>;

/** GET /customers. */
export const CustomerListQuery = Type.Object(
  { ...ListFields, workspaceId: Type.Optional(Type.String({ format: 'uuid' })) },
  { additionalProperties: false },
);
export type CustomerListQuery = Static<typeof CustomerListQuery>;

/* ----------------------------------------------------------------------------------------------
 * Customer self-service
 * -------------------------------------------------------------------------------------------- */

export const CustomerRegisterBody = Type.Object(
  {
    email: EmailAddress,
    password: Password,
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Name),
  },
  { additionalProperties: false, $id: 'CustomerRegisterBody' },
);
export type CustomerRegisterBody = Static<typeof CustomerRegisterBody>;

export const CustomerLoginBody = Type.Object(
  { email: EmailAddress, password: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false, $id: 'CustomerLoginBody' },
);
export type CustomerLoginBody = Static<typeof CustomerLoginBody>;

export const CustomerRefreshBody = Type.Object(
  { refreshToken: Type.String({ minLength: 1, maxLength: 512 }) },
  { additionalProperties: false, $id: 'CustomerRefreshBody' },
);
export type CustomerRefreshBody = Static<typeof CustomerRefreshBody>;

/** The customer as its session result shows it. */
export const SessionCustomer = Type.Object({
  id: Uuid,
  email: Type.String({ format: 'email' }),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  walletAddress: Nullable(Type.String()),
  status: CustomerStatusSchema,
});

/** The answer of register, login and refresh (the spec's "customer session result"). */
export const CustomerSession = Type.Object(
  {
    customer: SessionCustomer,
    accessToken: Type.String({
      description:
        'Customer JWT (3600 s), valid only on the customer routes of its workspace: send as `Authorization: Bearer <accessToken>`.',
    }),
    refreshToken: Type.String({ description: 'Opaque, single use: each refresh returns a new one and retires this one.' }),
    expiresIn: Type.Integer({ description: 'Seconds until the access token expires (3600).' }),
  },
  {
    $id: 'CustomerSession',
    examples: [
      {
        customer: {
          id: '0193a3c2-7f10-7a55-9d1e-4c2b8e0f1a30',
          email: 'grace@buyer.example',
          firstName: 'Grace',
          lastName: 'Hopper',
          walletAddress: null,
          status: 'active',
        },
        accessToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…',
        refreshToken: 'hfcr_3q2-Zx…',
        expiresIn: 3600,
      },
    ],
  },
);
export type CustomerSession = Static<typeof CustomerSession>;

/** GET /workspaces/{id}/customers/auth/me. */
export const CustomerMe = Type.Object(
  {
    id: Uuid,
    email: Type.String({ format: 'email' }),
    firstName: Nullable(Type.String()),
    lastName: Nullable(Type.String()),
    walletAddress: Nullable(Type.String()),
    walletLinkedAt: Nullable(DateTime),
    emailVerified: Type.Boolean(),
    status: CustomerStatusSchema,
  },
  { $id: 'CustomerMe' },
);
export type CustomerMe = Static<typeof CustomerMe>;

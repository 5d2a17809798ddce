import { type Static, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from '../common/domain.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../common/pagination.js';
import { Nullable } from './common.js';

/** One administrative act (or attempt): who, what, on which resource, with which outcome. */
export const AuditLogEntry = Type.Object(
  {
    id: Uuid,
    userId: Nullable(Uuid, { description: 'The acting user; null when the caller was not authenticated.' }),
    workspaceId: Nullable(Uuid, { description: 'The workspace the act concerns (else the actor’s workspace).' }),
    action: Type.String({ description: '`<resource>.<verb>`, e.g. `workspace.update`; the list is in docs/audit-logs.md.' }),
    resourceType: Type.String(),
    resourceId: Nullable(Type.String()),
    details: Nullable(Type.String({ description: 'One human-readable line.' })),
    changes: Nullable(
      Type.Record(Type.String(), Type.Unknown(), {
        description: '`{field: {from, to}}`; secret values (passwords, tokens, codes, keys) are replaced by "[redacted]".',
      }),
    ),
    success: Type.Boolean(),
    errorMessage: Nullable(Type.String()),
    ipAddress: Nullable(Type.String()),
    userAgent: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.Unknown(), {
      description: '`requestId`, `method`, `path`, `statusCode`, `errorCode`, `actorEmail`, `actorRole`.',
    }),
    createdAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7d',
        userId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a',
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        action: 'workspace.update',
        resourceType: 'workspace',
        resourceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        details: 'Updated workspace acme-payments: name',
        changes: { name: { from: 'Acme', to: 'Acme Payments' } },
        success: true,
        errorMessage: null,
        ipAddress: '203.0.113.7',
        userAgent: 'curl/8.5.0',
        metadata: {
          requestId: 'req_6f1c2a',
          method: 'PUT',
          path: '/api/v1/workspaces/0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
          statusCode: 200,
        },
        createdAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type AuditLogEntry = Static<typeof AuditLogEntry>;

const filters = {
  workspaceId: Type.Optional(Uuid),
  userId: Type.Optional(Uuid),
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[a-z_.*]+$',
      description: 'Exact action (`user.create`) or a prefix ending in `.*` (`user.*`).',
    }),
  ),
  resourceType: Type.Optional(Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z_]+$' })),
  resourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  success: Type.Optional(Type.Boolean({ description: '`false` lists only refused or failed acts.' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive lower bound of `createdAt`.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive upper bound of `createdAt`.' })),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Part of the details, error message or action.' })),
};
const page = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
};

/** Filters of every audit-log read; list answers are newest first. */
export const AuditLogQuery = Type.Object({ ...page, ...filters }, { additionalProperties: false });
export type AuditLogQuery = Static<typeof AuditLogQuery>;

/** `/workspaces/{id}/audit-logs`: the workspace comes from the path. */
const { workspaceId: _workspace, ...withoutWorkspace } = filters;
export const WorkspaceAuditLogQuery = Type.Object({ ...page, ...withoutWorkspace }, { additionalProperties: false });
/** `/users/{id}/audit-logs`: the acting user comes from the path. */
const { userId: _user, ...withoutUser } = filters;
export const UserAuditLogQuery = Type.Object({ ...page, ...withoutUser }, { additionalProperties: false });

export const AUDIT_EXPORT_FORMATS = ['csv', 'json'] as const;
export const AUDIT_EXPORT_MAX_ROWS = 10_000;
export const AuditExportQuery = Type.Object(
  {
    ...filters,
    format: StringEnum(AUDIT_EXPORT_FORMATS, { default: 'csv' }),
    limit: Type.Integer({
      minimum: 1,
      maximum: AUDIT_EXPORT_MAX_ROWS,
      default: AUDIT_EXPORT_MAX_ROWS,
      description: 'Newest entries first; `X-Export-Truncated: true` when more matched.',
    }),
  },
  { additionalProperties: false },
);
export type AuditExportQuery = Static<typeof AuditExportQuery>;

export const AuditStatsQuery = Type.Object(filters, { additionalProperties: false });
export type AuditStatsQuery = Static<typeof AuditStatsQuery>;

export const AuditStats = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    succeeded: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    firstAt: Nullable(DateTime),
    lastAt: Nullable(DateTime),
    byAction: Type.Array(Type.Object({ action: Type.String(), total: Type.Integer(), failed: Type.Integer() })),
    byResourceType: Type.Array(Type.Object({ resourceType: Type.String(), total: Type.Integer() })),
    byDay: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), total: Type.Integer(), failed: Type.Integer() }), {
      description: 'UTC days, oldest first.',
    }),
    topUsers: Type.Array(Type.Object({ userId: Uuid, total: Type.Integer() }), { description: 'The 10 most active users.' }),
  },
  {
    examples: [
      {
        total: 3,
        succeeded: 2,
        failed: 1,
        firstAt: '2026-11-20T09:00:00.000Z',
        lastAt: '2026-11-21T10:00:00.000Z',
        byAction: [
          { action: 'workspace.update', total: 2, failed: 1 },
          { action: 'user.create', total: 1, failed: 0 },
        ],
        byResourceType: [
          { resourceType: 'workspace', total: 2 },
          { resourceType: 'user', total: 1 },
        ],
        byDay: [
          { date: '2026-11-20', total: 1, failed: 0 },
          { date: '2026-11-21', total: 2, failed: 1 },
        ],
        topUsers: [{ userId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a', total: 3 }],
      },
    ],
  },
);
export type AuditStats = Static<typeof AuditStats>;

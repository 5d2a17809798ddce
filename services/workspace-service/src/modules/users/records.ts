import type { RequestRole, UserRecord, UserRole } from '@holdfast/contracts';
import type { UserRow } from './repository.js';

export function toUserRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    status: row.status,
    workspaceId: row.workspaceId,
    emailVerified: row.emailVerified,
    avatarPath: row.avatarPath,
    lastLoginAt: row.lastLoginAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** E-mail addresses are compared and stored in lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `admin` -> `ADMIN`: requests write roles in lower case, answers in upper case. */
export function roleFromRequest(role: RequestRole): UserRole {
  return role === 'admin' ? 'ADMIN' : 'CLIENT';
}

/** The fields of a user an audit entry shows. */
export function auditedUser(row: UserRow): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, lastLoginAt: _l, avatarPath, ...rest } = toUserRecord(row);
  return { ...rest, avatarPath };
}

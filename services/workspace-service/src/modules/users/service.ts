import {
  AppError,
  type ChangePasswordBody,
  type CreateUserBody,
  conflict,
  forbidden,
  notFound,
  paginationMeta,
  type UpdateMeBody,
  type UpdateUserBody,
  type UserListQuery,
  type UserRecord,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import type { Store } from '../../db/store.js';
import {
  type Actor,
  adminReadScope,
  type Caller,
  hashPassword,
  isSuperAdmin,
  passwordPolicyErrors,
  requireActor,
  verifyPassword,
} from '../access/index.js';
import { AUDIT, type AuditRepository, type AuditService, diffChanges, REDACTED } from '../audit/index.js';
import type { AvatarStore, Upload } from '../storage/index.js';
import type { WorkspacesRepository } from '../workspaces/index.js';
import { auditedUser, normalizeEmail, roleFromRequest, toUserRecord } from './records.js';
import { isDuplicateEmail, type UserPatch, type UserRow, type UsersRepository } from './repository.js';

/**
 * Ends a user's sessions when an administrator disables it or its password changes. The sessions
 * repository implements it: sessions depend on users, never the reverse.
 */
export interface UserSessions {
  revokeUserSessions(userId: string, reason: string, exceptSessionId?: string): Promise<number>;
}

export interface UsersRepos {
  users: UsersRepository;
  sessions: UserSessions;
  workspaces: WorkspacesRepository;
  audit: AuditRepository;
}

/**
 * Users and their administration. A SUPER_ADMIN manages everyone; an ADMIN manages the users of its
 * workspace (never a SUPER_ADMIN); nobody changes its own role, status or workspace, or deletes
 * itself, through the administrative routes.
 */
export function createUsersService(deps: { store: Store<UsersRepos>; audit: AuditService; avatars: AvatarStore }) {
  const { store, audit, avatars } = deps;

  /** The target user if the actor administers it; 404 otherwise (another tenant's users do not exist for an ADMIN). */
  async function administered(repos: UsersRepos, actor: Actor, id: string, lock = false): Promise<UserRow> {
    const scope = adminReadScope(actor);
    const user = lock ? await repos.users.findByIdForUpdate(id) : await repos.users.findById(id);
    if (!user) throw notFound('User');
    if (scope.kind === 'all') return user;
    const visible =
      user.role !== 'SUPER_ADMIN' &&
      ((scope.kind === 'workspace' && user.workspaceId === scope.workspaceId) || (scope.kind === 'self' && user.id === scope.userId));
    if (!visible) throw notFound('User');
    return user;
  }

  async function assertWorkspaceExists(repos: UsersRepos, workspaceId: string | null | undefined): Promise<void> {
    if (!workspaceId) return;
    if (!(await repos.workspaces.findById(workspaceId)))
      throw validationError([{ field: 'workspaceId', reason: 'is not an existing workspace' }]);
  }

  function duplicateEmail(): AppError {
    return conflict('An account with this e-mail already exists', { field: 'email' });
  }

  return {
    list: async (actor: Actor, query: UserListQuery) => {
      const scope = adminReadScope(actor);
      if (scope.kind !== 'all' && query.workspaceId && query.workspaceId !== (scope.kind === 'workspace' ? scope.workspaceId : undefined)) {
        throw forbidden('Not a member of this workspace');
      }
      const { rows, total } = await store.repos.users.list(
        {
          workspaceId: scope.kind === 'workspace' ? scope.workspaceId : query.workspaceId,
          onlyUserId: scope.kind === 'self' ? scope.userId : undefined,
          role: query.role ? roleFromRequest(query.role) : undefined,
          status: query.status,
          search: query.search,
        },
        query.page,
        query.limit,
      );
      return { users: rows.map(toUserRecord), pagination: paginationMeta(query.page, query.limit, total) };
    },

    create: async (caller: Caller, body: CreateUserBody): Promise<UserRecord> => {
      const actor = requireActor(caller);
      const scope = adminReadScope(actor);
      let workspaceId = body.workspaceId ?? null;
      if (scope.kind !== 'all') {
        if (!actor.workspaceId) throw new AppError('USER_HAS_NO_WORKSPACE', 'Create a workspace before adding users to it');
        if (body.workspaceId === undefined) workspaceId = actor.workspaceId;
        if (workspaceId !== actor.workspaceId) throw forbidden('An ADMIN adds users to its own workspace only');
      }
      const problems = passwordPolicyErrors(body.password, 'password');
      if (problems.length > 0) throw validationError(problems);
      const email = normalizeEmail(body.email);
      const passwordHash = await hashPassword(body.password);
      try {
        const row = await store.transaction(async (repos) => {
          await assertWorkspaceExists(repos, workspaceId);
          if (await repos.users.findByEmail(email)) throw duplicateEmail();
          const inserted = await repos.users.insert({
            id: uuidv7(),
            email,
            passwordHash,
            firstName: body.firstName ?? null,
            lastName: body.lastName ?? null,
            role: roleFromRequest(body.role),
            status: 'active',
            workspaceId,
            // An administrator creating the account vouches for the address.
            emailVerified: true,
          });
          await audit.record(repos, caller, AUDIT.userCreate, {
            resourceId: inserted.id,
            workspaceId,
            details: `Created ${inserted.role} ${email}`,
            changes: { ...diffChanges({}, auditedUser(inserted)), password: { from: null, to: REDACTED } },
          });
          return inserted;
        });
        return toUserRecord(row);
      } catch (error) {
        if (isDuplicateEmail(error)) throw duplicateEmail();
        throw error;
      }
    },

    get: async (actor: Actor, id: string): Promise<UserRecord> => toUserRecord(await administered(store.repos, actor, id)),

    update: async (caller: Caller, id: string, body: UpdateUserBody): Promise<UserRecord> => {
      const actor = requireActor(caller);
      const self = id === actor.id;
      if (self && (body.role !== undefined || body.status !== undefined || body.workspaceId !== undefined)) {
        throw forbidden('You cannot change your own role, status or workspace');
      }
      if (self && body.password !== undefined) throw forbidden('Change your own password with PATCH /users/me/password');
      if (body.password !== undefined) {
        const problems = passwordPolicyErrors(body.password, 'password');
        if (problems.length > 0) throw validationError(problems);
      }
      const passwordHash = body.password !== undefined ? await hashPassword(body.password) : undefined;
      try {
        const updated = await store.transaction(async (repos) => {
          const user = await administered(repos, actor, id, true);
          if (
            !isSuperAdmin(actor) &&
            body.workspaceId !== undefined &&
            body.workspaceId !== null &&
            body.workspaceId !== actor.workspaceId
          ) {
            throw forbidden('An ADMIN cannot move users to another workspace');
          }
          await assertWorkspaceExists(repos, body.workspaceId);
          const patch: UserPatch = {};
          if (body.email !== undefined) {
            const email = normalizeEmail(body.email);
            if (email !== user.email) {
              const holder = await repos.users.findByEmail(email);
              if (holder) throw duplicateEmail();
              patch.email = email;
              patch.emailVerified = true;
            }
          }
          if (body.firstName !== undefined) patch.firstName = body.firstName;
          if (body.lastName !== undefined) patch.lastName = body.lastName;
          if (body.role !== undefined) patch.role = roleFromRequest(body.role);
          if (body.status !== undefined) patch.status = body.status;
          if (body.workspaceId !== undefined) patch.workspaceId = body.workspaceId;
          if (passwordHash) {
            patch.passwordHash = passwordHash;
            patch.passwordChangedAt = new Date();
          }
          const next = await repos.users.update(id, patch);
          // Sessions end when the password changes or the account stops being active.
          const endsSessions = passwordHash !== undefined || (patch.status !== undefined && patch.status !== 'active');
          const revoked = endsSessions
            ? await repos.sessions.revokeUserSessions(id, passwordHash ? 'password_reset' : `account_${patch.status}`)
            : 0;
          const changes: Record<string, unknown> = diffChanges(auditedUser(user), auditedUser(next));
          if (passwordHash) changes.password = { from: REDACTED, to: REDACTED };
          await audit.record(repos, caller, AUDIT.userUpdate, {
            resourceId: id,
            workspaceId: next.workspaceId ?? user.workspaceId,
            details: `Updated ${next.email}: ${Object.keys(changes).join(', ') || 'no change'}`,
            changes,
            metadata: revoked > 0 ? { sessionsRevoked: revoked } : undefined,
          });
          return next;
        });
        return toUserRecord(updated);
      } catch (error) {
        if (isDuplicateEmail(error)) throw duplicateEmail();
        throw error;
      }
    },

    delete: async (caller: Caller, id: string) => {
      const actor = requireActor(caller);
      if (id === actor.id) throw forbidden('You cannot delete your own account');
      const removed = await store.transaction(async (repos) => {
        const user = await administered(repos, actor, id, true);
        await repos.users.delete(id);
        await audit.record(repos, caller, AUDIT.userDelete, {
          resourceId: id,
          workspaceId: user.workspaceId,
          details: `Deleted ${user.role} ${user.email}`,
          changes: diffChanges(auditedUser(user), {}),
        });
        return user;
      });
      await avatars.remove(removed.avatarPath);
      return { message: `User ${removed.email} deleted` };
    },

    me: async (actor: Actor): Promise<UserRecord> => {
      const user = await store.repos.users.findById(actor.id);
      if (!user) throw notFound('User');
      return toUserRecord(user);
    },

    updateMe: async (caller: Caller, body: UpdateMeBody): Promise<UserRecord> => {
      const actor = requireActor(caller);
      const updated = await store.transaction(async (repos) => {
        const user = await repos.users.findByIdForUpdate(actor.id);
        if (!user) throw notFound('User');
        const next = await repos.users.update(actor.id, {
          ...(body.firstName !== undefined ? { firstName: body.firstName } : {}),
          ...(body.lastName !== undefined ? { lastName: body.lastName } : {}),
        });
        const changes = diffChanges(auditedUser(user), auditedUser(next));
        await audit.record(repos, caller, AUDIT.profileUpdate, {
          resourceId: actor.id,
          details: `Updated own profile: ${Object.keys(changes).join(', ') || 'no change'}`,
          changes,
        });
        return next;
      });
      return toUserRecord(updated);
    },

    /** Needs the current password; ends every other session of the user. */
    changePassword: async (caller: Caller, body: ChangePasswordBody) => {
      const actor = requireActor(caller);
      const problems = passwordPolicyErrors(body.newPassword, 'newPassword');
      if (body.newPassword === body.currentPassword)
        problems.push({ field: 'newPassword', reason: 'must differ from the current password' });
      const user = await store.repos.users.findById(actor.id);
      if (!user) throw notFound('User');
      if (!(await verifyPassword(user.passwordHash, body.currentPassword))) {
        problems.unshift({ field: 'currentPassword', reason: 'is not your current password' });
      }
      if (problems.length > 0) throw validationError(problems);
      const passwordHash = await hashPassword(body.newPassword);
      const revoked = await store.transaction(async (repos) => {
        await repos.users.update(actor.id, { passwordHash, passwordChangedAt: new Date() });
        const count = await repos.sessions.revokeUserSessions(actor.id, 'password_changed', actor.sessionId);
        await audit.record(repos, caller, AUDIT.passwordChange, {
          resourceId: actor.id,
          details: 'Changed own password',
          changes: { password: { from: REDACTED, to: REDACTED } },
          metadata: { otherSessionsRevoked: count },
        });
        return count;
      });
      return { message: 'Password changed', otherSessionsRevoked: revoked };
    },

    uploadAvatar: async (caller: Caller, upload: Upload): Promise<UserRecord> => {
      const actor = requireActor(caller);
      const path = await avatars.save(upload);
      let previous: string | null = null;
      try {
        const updated = await store.transaction(async (repos) => {
          const user = await repos.users.findByIdForUpdate(actor.id);
          if (!user) throw notFound('User');
          previous = user.avatarPath;
          const next = await repos.users.update(actor.id, { avatarPath: path });
          await audit.record(repos, caller, AUDIT.userAvatarUpload, {
            resourceId: actor.id,
            details: 'Uploaded an avatar',
            changes: diffChanges({ avatarPath: user.avatarPath }, { avatarPath: path }),
            metadata: { bytes: upload.data.length, contentType: upload.declaredType },
          });
          return next;
        });
        await avatars.remove(previous);
        return toUserRecord(updated);
      } catch (error) {
        await avatars.remove(path);
        throw error;
      }
    },

    deleteAvatar: async (caller: Caller): Promise<void> => {
      const actor = requireActor(caller);
      const previous = await store.transaction(async (repos) => {
        const user = await repos.users.findByIdForUpdate(actor.id);
        if (!user) throw notFound('User');
        await repos.users.update(actor.id, { avatarPath: null });
        await audit.record(repos, caller, AUDIT.userAvatarDelete, {
          resourceId: actor.id,
          details: user.avatarPath ? 'Removed the avatar' : 'No avatar to remove',
          changes: diffChanges({ avatarPath: user.avatarPath }, { avatarPath: null }),
        });
        return user.avatarPath;
      });
      await avatars.remove(previous);
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

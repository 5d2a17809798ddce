import { ADMIN_ROLES, AppError, forbidden, type UserRole } from '@holdfast/contracts';
import type { Actor } from './caller.js';

/**
 * The role model (docs/sessions-and-roles.md):
 * - SUPER_ADMIN operates Holdfast: every workspace, every user.
 * - ADMIN administers its own workspace: where the spec says "ADMIN or SUPER_ADMIN", an ADMIN acts
 *   inside its workspace only, so tenants never see each other.
 * - CLIENT is a member of its workspace: workspace-access operations, no administration.
 */
export { ADMIN_ROLES };

export function isSuperAdmin(actor: Actor): boolean {
  return actor.role === 'SUPER_ADMIN';
}

export function assertRole(actor: Actor, roles: readonly UserRole[]): void {
  if (!roles.includes(actor.role)) throw forbidden(`Needs the ${roles.join(' or ')} role`);
}

/** Workspace access: a member of the workspace (any role) or a SUPER_ADMIN. */
export function assertWorkspaceAccess(actor: Actor, workspaceId: string): void {
  if (isSuperAdmin(actor) || actor.workspaceId === workspaceId) return;
  throw forbidden('Not a member of this workspace');
}

/** Workspace administration: an ADMIN of the workspace or a SUPER_ADMIN. */
export function assertWorkspaceAdmin(actor: Actor, workspaceId: string): void {
  if (isSuperAdmin(actor)) return;
  assertRole(actor, ADMIN_ROLES);
  assertWorkspaceAccess(actor, workspaceId);
}

/** The workspace an actor's own operations (`/workspaces/me`) work on. */
export function ownWorkspaceId(actor: Actor): string {
  if (!actor.workspaceId) throw new AppError('USER_HAS_NO_WORKSPACE', 'You belong to no workspace');
  return actor.workspaceId;
}

/**
 * What an ADMIN-or-SUPER_ADMIN read may cover: everything for a SUPER_ADMIN, the actor's workspace
 * for an ADMIN (or only the actor itself when it has none yet).
 */
export type ReadScope = { kind: 'all' } | { kind: 'workspace'; workspaceId: string } | { kind: 'self'; userId: string };

export function adminReadScope(actor: Actor): ReadScope {
  if (isSuperAdmin(actor)) return { kind: 'all' };
  assertRole(actor, ADMIN_ROLES);
  return actor.workspaceId ? { kind: 'workspace', workspaceId: actor.workspaceId } : { kind: 'self', userId: actor.id };
}

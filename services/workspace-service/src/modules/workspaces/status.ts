import { AppError, type WorkspaceStatus } from '@holdfast/contracts';

/**
 * What a workspace's status lets it do (docs/workspace-tenancy.md#status):
 * - `active` (approved by a Holdfast operator): everything; the only status that is issued
 *   money-moving credentials (sandbox credentials, OAuth clients).
 * - `pending` (new, not approved yet): its members use the Workspace API to set it up; no credentials.
 * - `suspended`, `inactive` (closed): its members' access tokens are refused, and its payments
 *   platforms were deactivated when it left `active`.
 */
export const CLOSED_WORKSPACE_STATUSES: readonly WorkspaceStatus[] = ['suspended', 'inactive'];

export function isClosedWorkspace(status: WorkspaceStatus): boolean {
  return CLOSED_WORKSPACE_STATUSES.includes(status);
}

/**
 * A status change that takes the workspace's credentials away: any move to a status other than
 * `active` (suspended, inactive, or back to pending). Its payments platforms are deactivated.
 */
export function revokesCredentials(from: WorkspaceStatus, to: WorkspaceStatus): boolean {
  return from !== to && to !== 'active';
}

/** 403 unless the workspace is `active`: money-moving credentials go to an operator-approved workspace only. */
export function assertIssuesCredentials(workspace: { status: WorkspaceStatus }): void {
  if (workspace.status === 'active') return;
  const message =
    workspace.status === 'pending'
      ? 'The workspace is pending: credentials are issued once a Holdfast operator approves (activates) it'
      : `The workspace is ${workspace.status}: no credentials are issued for it`;
  throw new AppError('FORBIDDEN', message, { reason: 'workspace_not_active', workspaceStatus: workspace.status });
}

/** 403 for a member of a closed workspace (its access tokens are refused on every route). */
export function closedWorkspaceError(status: WorkspaceStatus): AppError {
  return new AppError('FORBIDDEN', `The workspace is ${status}: its members' access is refused until a Holdfast operator reactivates it`, {
    reason: 'workspace_closed',
    workspaceStatus: status,
  });
}

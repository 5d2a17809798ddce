import type { SessionEnvironment, UserRole, WorkspaceKeyPrincipal } from '@holdfast/contracts';
import { unauthorized } from '@holdfast/contracts';

/** The authenticated user behind a request, as stored now (not as the token claimed at login). */
export interface Actor {
  id: string;
  email: string;
  role: UserRole;
  workspaceId: string | null;
  /** The session (refresh-token family) the access token was issued for. */
  sessionId: string;
  environment: SessionEnvironment;
}

/** The customer behind a customer access token (customer self-service routes), as stored now. */
export interface CustomerPrincipal {
  id: string;
  email: string;
  /** The customer's workspace (the token's, checked against the stored record). */
  workspaceId: string;
  sessionId: string;
}

/** Who calls and from where: what a service needs for its rules and its audit entries. */
export interface Caller {
  actor: Actor | null;
  /** Set on customer routes (`config.access: 'customer'`) only. */
  customer?: CustomerPrincipal | null;
  /** Set on workspace-key routes (`config.access: 'workspace_key'`) only: the platform of the key. */
  workspaceKey?: WorkspaceKeyPrincipal | null;
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string;
  method: string;
  path: string;
  /** Set once an audit entry for this request was written (success or refusal). */
  audited: boolean;
}

export function requireActor(caller: Caller): Actor {
  if (!caller.actor) throw unauthorized('Missing bearer token');
  return caller.actor;
}

export function requireCustomer(caller: Caller): CustomerPrincipal {
  if (!caller.customer) throw unauthorized('Missing customer bearer token');
  return caller.customer;
}

export function requireWorkspaceKey(caller: Caller): WorkspaceKeyPrincipal {
  if (!caller.workspaceKey) throw unauthorized('Missing X-API-Key');
  return caller.workspaceKey;
}

import type { SessionEnvironment, UserRole } from '@holdfast/contracts';
import { unauthorized } from '@holdfast/http-kit';

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

/** Who calls and from where: what a service needs for its rules and its audit entries. */
export interface Caller {
  actor: Actor | null;
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

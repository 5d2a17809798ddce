import type { ErrorObject } from '@holdfast/contracts';
import { type HttpApp, toErrorObject } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import type { AuditAction } from './actions.js';
import type { AuditService } from './service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Mutating routes: the action their audit entries record. */
    audit?: AuditAction;
  }
  interface FastifyRequest {
    auditError?: ErrorObject;
  }
}

/** Refusals not worth a row each: the rate limiter's own 429s (a flood would become a write flood). */
const NOT_AUDITED = new Set([429]);

/**
 * The HTTP half of the audit trail, for routes with `config.audit`: a refused or failed call (401,
 * 403, 400, 404, 409, 5xx...) gets an entry here; a successful one was recorded by its service,
 * inside its transaction. A success without an entry is a bug: it is logged and recorded anyway.
 */
export function installAuditTrail(scope: HttpApp, deps: { audit: AuditService; logger: Logger }) {
  scope.addHook('onError', async (request, _reply, error) => {
    request.auditError = toErrorObject(error);
  });
  scope.addHook('onSend', async (request, reply, payload) => {
    const what = request.routeOptions.config.audit;
    const caller = request.caller;
    if (!what || !caller || caller.audited || NOT_AUDITED.has(reply.statusCode)) return payload;
    const params = (request.params ?? {}) as Record<string, unknown>;
    // The target: the `{id}` of the path, or for `/me` routes the caller's own user or workspace.
    const onSelf = /\/me(\/|$)/.test(request.routeOptions.url ?? '');
    const self = what.resourceType === 'workspace' ? caller.actor?.workspaceId : caller.actor?.id;
    // On customer routes `{id}` names the workspace: the target is the customer.
    const resourceId = caller.customer ? caller.customer.id : typeof params.id === 'string' ? params.id : onSelf ? (self ?? null) : null;
    try {
      if (reply.statusCode >= 400) {
        const error = request.auditError;
        await deps.audit.recordFailure(caller, what, {
          resourceId,
          errorMessage: error?.message ?? `HTTP ${reply.statusCode}`,
          statusCode: reply.statusCode,
          errorCode: error?.code,
        });
      } else {
        deps.logger.error({ action: what.action, route: request.routeOptions.url }, 'a successful mutating call wrote no audit entry');
        await deps.audit.recordOutside(caller, what, { resourceId, details: 'Recorded by the HTTP layer' });
      }
    } catch (error) {
      deps.logger.error({ err: error, action: what.action }, 'could not write an audit entry');
    }
    return payload;
  });
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../access/index.js';
import type { AuditService } from './service.js';

export function auditRoutes(audit: AuditService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listAuditLogs, { config: { roles: ADMIN_ROLES } }, async (request) => {
      const { entries, pagination } = await audit.list(requireActor(request.caller), request.query);
      return envelope(request, entries, pagination);
    });

    serveEndpoint(app, api.exportAuditLogs, { config: { tier: 'admin', roles: ADMIN_ROLES } }, async (request, reply) => {
      const file = await audit.export(requireActor(request.caller), request.query);
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('x-export-truncated', String(file.truncated))
        .header('x-export-count', String(file.count))
        .send(file.body);
    });

    serveEndpoint(app, api.auditLogStats, { config: { roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await audit.stats(requireActor(request.caller), request.query)),
    );

    serveEndpoint(app, api.getAuditLog, { config: { roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await audit.get(requireActor(request.caller), request.params.id)),
    );
  };
}

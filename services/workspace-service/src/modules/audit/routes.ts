import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, paged, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { AuditService } from './service.js';

export function auditRoutes(audit: AuditService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listAuditLogs, async (request) => {
        const { entries, pagination } = await audit.list(requireActor(request.caller), request.query);
        return paged(entries, pagination);
      }),
      route(api.exportAuditLogs, async (request, reply) => {
        const file = await audit.export(requireActor(request.caller), request.query);
        return reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .header('x-export-truncated', String(file.truncated))
          .header('x-export-count', String(file.count))
          .send(file.body);
      }),
      route(api.auditLogStats, async (request) => audit.stats(requireActor(request.caller), request.query)),
      route(api.getAuditLog, async (request) => audit.get(requireActor(request.caller), request.params.id)),
    ]);
  };
}

import {
  AUDIT_EXPORT_MAX_ROWS,
  AuditExportQuery,
  AuditLogEntry,
  AuditLogQuery,
  AuditStats,
  AuditStatsQuery,
  IdParams,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { ADMIN_ROLES } from '../access/policy.js';
import type { AuditService } from './service.js';

const TAG = 'audit logs';
const SCOPE = 'A SUPER_ADMIN reads every entry; an ADMIN the entries filed under its workspace.';

export function auditRoutes(audit: AuditService) {
  return async (app: HttpApp) => {
    app.get(
      '/audit-logs',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'List audit entries',
          description: `Newest first. ${SCOPE} Filters: see docs/audit-logs.md.`,
          operationId: 'listAuditLogs',
          security: BEARER,
          querystring: AuditLogQuery,
          response: { 200: ok(Type.Array(AuditLogEntry)), ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const { entries, pagination } = await audit.list(requireActor(request.caller), request.query);
        return envelope(request, entries, pagination);
      },
    );

    app.get(
      '/audit-logs/export',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'Export audit entries as a CSV or JSON file',
          description:
            `The entries matching the filters, newest first, at most \`limit\` (default and maximum ${AUDIT_EXPORT_MAX_ROWS}); ` +
            '`X-Export-Truncated: true` says more matched (narrow with `from`/`to`). `format=csv` (default) or `format=json` (an array). ' +
            `CSV cells that a spreadsheet would run as a formula start with an apostrophe. ${SCOPE}`,
          operationId: 'exportAuditLogs',
          security: BEARER,
          querystring: AuditExportQuery,
          response: {
            200: {
              description: 'The file (Content-Disposition: attachment)',
              content: {
                'text/csv': { schema: { type: 'string' } },
                'application/json': { schema: Type.Array(AuditLogEntry) },
              },
            },
            ...errorResponses(401, 403),
          },
        },
      },
      async (request, reply) => {
        const file = await audit.export(requireActor(request.caller), request.query);
        return reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .header('x-export-truncated', String(file.truncated))
          .header('x-export-count', String(file.count))
          .send(file.body);
      },
    );

    app.get(
      '/audit-logs/stats',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'Audit statistics',
          description: `Counts of the entries matching the filters: totals, per action, per resource type, per UTC day, the 10 most active users. ${SCOPE}`,
          operationId: 'auditLogStats',
          security: BEARER,
          querystring: AuditStatsQuery,
          response: { 200: ok(AuditStats), ...errorResponses(401, 403) },
        },
      },
      async (request) => envelope(request, await audit.stats(requireActor(request.caller), request.query)),
    );

    app.get(
      '/audit-logs/:id',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'Get an audit entry',
          description: `${SCOPE} Entries outside that scope answer 404.`,
          operationId: 'getAuditLog',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(AuditLogEntry), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await audit.get(requireActor(request.caller), request.params.id)),
    );
  };
}

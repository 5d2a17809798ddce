import { Type } from '@sinclair/typebox';
import { SuccessEnvelope as ok } from '../../common/envelope.js';
import { AUDIT_EXPORT_MAX_ROWS, AuditExportQuery, AuditLogEntry, AuditLogQuery, AuditStats, AuditStatsQuery } from '../audit.js';
import { IdParams } from '../common.js';
import { ADMIN_ROLES } from '../identity.js';
import { resource } from './define.js';

// audit logs

const AUDIT_SCOPE = 'A SUPER_ADMIN reads every entry; an ADMIN the entries filed under its workspace.';

const endpoint = resource({ tags: ['audit logs'], roles: ADMIN_ROLES });

export const listAuditLogs = endpoint('GET /audit-logs', {
  operationId: 'listAuditLogs',
  summary: 'List audit entries',
  description: `Newest first. ${AUDIT_SCOPE} Filters: see docs/audit-logs.md.`,
  querystring: AuditLogQuery,
  response: { 200: ok(Type.Array(AuditLogEntry)) },
});

export const exportAuditLogs = endpoint('GET /audit-logs/export', {
  operationId: 'exportAuditLogs',
  summary: 'Export audit entries as a CSV or JSON file',
  description:
    `The entries matching the filters, newest first, at most \`limit\` (default and maximum ${AUDIT_EXPORT_MAX_ROWS}); ` +
    '`X-Export-Truncated: true` says more matched (narrow with `from`/`to`). `format=csv` (default) or `format=json` (an array). ' +
    `CSV cells that a spreadsheet would run as a formula start with an apostrophe. ${AUDIT_SCOPE}`,
  tier: 'admin',
  querystring: AuditExportQuery,
  response: {
    200: {
      description: 'The file (Content-Disposition: attachment)',
      content: {
        'text/csv': { schema: { type: 'string' } },
        'application/json': { schema: Type.Array(AuditLogEntry) },
      },
    },
  },
});

export const auditLogStats = endpoint('GET /audit-logs/stats', {
  operationId: 'auditLogStats',
  summary: 'Audit statistics',
  description: `Counts of the entries matching the filters: totals, per action, per resource type, per UTC day, the 10 most active users. ${AUDIT_SCOPE}`,
  querystring: AuditStatsQuery,
  response: { 200: ok(AuditStats) },
});

export const getAuditLog = endpoint('GET /audit-logs/:id', {
  operationId: 'getAuditLog',
  summary: 'Get an audit entry',
  description: `${AUDIT_SCOPE} Entries outside that scope answer 404.`,
  params: IdParams,
  response: { 200: ok(AuditLogEntry) },
  errors: [404],
});

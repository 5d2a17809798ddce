// The public face of the audit module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { AUDIT, type AuditAction } from './actions.js';
export { diffChanges, REDACTED } from './redact.js';
export { type AuditRepository, createAuditRepository } from './repository.js';
export type { AuditService } from './service.js';

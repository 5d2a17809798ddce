// The audit actions are part of the Workspace API's catalogue (@holdfast/contracts): each endpoint
// names its own, and the services record the same objects.
export { type AuditAction, WORKSPACE_AUDIT as AUDIT } from '@holdfast/contracts';

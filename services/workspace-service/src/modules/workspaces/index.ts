// The public face of the workspaces module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export type { PlatformMappingRow, PlatformMappingsRepository } from './platform-mappings.js';
export type { WorkspacesRepository } from './repository.js';
export { METADATA_MAX_BYTES } from './service.js';
export { assertIssuesCredentials, closedWorkspaceError, isClosedWorkspace } from './status.js';
export { platformMappings, workspaces } from './tables.js';

import type { HttpApp } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { type AuthenticationDeps, installAuthentication } from '../modules/access/hooks.js';
import { installAuditTrail } from '../modules/audit/hooks.js';
import type { AuditService } from '../modules/audit/service.js';
import { markUnversioned } from './surface.js';

export type RoutePlugin = (app: HttpApp) => Promise<void>;

/**
 * Registers the Workspace API in one scope that authenticates every request and audits every
 * mutating call: the host-root routes once, the versioned routes under `/api/v1` and again, as
 * their deprecated copies, under `/api`.
 */
export async function registerWorkspaceApi(
  app: HttpApp,
  deps: AuthenticationDeps & {
    audit: AuditService;
    logger: Logger;
    hostRoot: RoutePlugin[];
    versioned: RoutePlugin[];
  },
): Promise<void> {
  const versioned: RoutePlugin = async (scope) => {
    for (const plugin of deps.versioned) await scope.register(plugin);
  };
  await app.register(async (scope) => {
    installAuthentication(scope, deps);
    installAuditTrail(scope, deps);
    for (const plugin of deps.hostRoot) await scope.register(plugin);
    await scope.register(versioned, { prefix: '/api/v1' });
    await scope.register(
      async (legacy) => {
        markUnversioned(legacy);
        await legacy.register(versioned);
      },
      { prefix: '/api' },
    );
  });
}

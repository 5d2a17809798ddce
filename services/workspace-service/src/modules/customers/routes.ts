import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, paged, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { CustomerAdmin } from './admin.js';
import type { CustomerSessions } from './customer-sessions.js';

/** `/workspaces/{id}/customers`: a workspace's customers, for its administrators. */
export function workspaceCustomerRoutes(admin: CustomerAdmin) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listWorkspaceCustomers, async (request) => {
        const page = await admin.listForWorkspace(requireActor(request.caller), request.params.id, request.query);
        return paged(page.customers, page.pagination);
      }),
      route(api.createWorkspaceCustomer, async (request) => admin.createForWorkspace(request.caller, request.params.id, request.body)),
    ]);
  };
}

/** `/customers[/{id}]`: customers across workspaces (SUPER_ADMIN) or of the caller's workspace (ADMIN). */
export function globalCustomerRoutes(admin: CustomerAdmin) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listCustomers, async (request) => {
        const page = await admin.list(requireActor(request.caller), request.query);
        return paged(page.customers, page.pagination);
      }),
      route(api.createCustomer, async (request) => admin.create(request.caller, request.body)),
      route(api.getCustomer, async (request) => admin.get(requireActor(request.caller), request.params.id)),
      route(api.updateCustomer, async (request) => admin.update(request.caller, request.params.id, request.body)),
      route(api.deleteCustomer, async (request) => admin.remove(request.caller, request.params.id)),
    ]);
  };
}

/**
 * `/workspaces/{id}/customers/auth/*`: customers registering and signing in (public), and acting
 * with their customer JWT (me, wallet linking, wallet balances). `{id}` is the workspace id or slug.
 */
export function customerAuthRoutes(sessions: CustomerSessions) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.registerCustomer, async (request) => sessions.register(request.caller, request.params.id, request.body)),
      route(api.loginCustomer, async (request) => sessions.login(request.caller, request.params.id, request.body)),
      route(api.refreshCustomer, async (request) => sessions.refresh(request.caller, request.params.id, request.body)),
      route(api.logoutCustomer, async (request) => sessions.logout(request.caller, request.params.id, request.body)),
      route(api.customerMe, async (request) => sessions.me(request.caller, request.params.id)),
    ]);
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, paged, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { CustomersService } from './service.js';

/** `/workspaces/{id}/customers`: a workspace's customers, for its administrators. */
export function workspaceCustomerRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listWorkspaceCustomers, async (request) => {
        const page = await customers.listForWorkspace(requireActor(request.caller), request.params.id, request.query);
        return paged(page.customers, page.pagination);
      }),
      route(api.createWorkspaceCustomer, async (request) => customers.createForWorkspace(request.caller, request.params.id, request.body)),
    ]);
  };
}

/** `/customers[/{id}]`: customers across workspaces (SUPER_ADMIN) or of the caller's workspace (ADMIN). */
export function globalCustomerRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listCustomers, async (request) => {
        const page = await customers.list(requireActor(request.caller), request.query);
        return paged(page.customers, page.pagination);
      }),
      route(api.createCustomer, async (request) => customers.create(request.caller, request.body)),
      route(api.getCustomer, async (request) => customers.get(requireActor(request.caller), request.params.id)),
      route(api.updateCustomer, async (request) => customers.update(request.caller, request.params.id, request.body)),
      route(api.deleteCustomer, async (request) => customers.remove(request.caller, request.params.id)),
    ]);
  };
}

/**
 * `/workspaces/{id}/customers/auth/*`: customers registering and signing in (public), and acting
 * with their customer JWT (me, wallet linking, wallet balances). `{id}` is the workspace id or slug.
 */
export function customerAuthRoutes(customers: CustomersService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.registerCustomer, async (request) => customers.register(request.caller, request.params.id, request.body)),
      route(api.loginCustomer, async (request) => customers.login(request.caller, request.params.id, request.body)),
      route(api.refreshCustomer, async (request) => customers.refresh(request.caller, request.params.id, request.body)),
      route(api.logoutCustomer, async (request) => customers.logout(request.caller, request.params.id, request.body)),
      route(api.customerMe, async (request) => customers.me(request.caller, request.params.id)),
    ]);
  };
}

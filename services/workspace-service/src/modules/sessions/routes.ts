import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { SessionsService } from './service.js';

/** Login, refresh and logout: served at the host root (`/identity/*`) and under `/api/v1/auth/*`. */
function sessionRoutes(
  sessions: SessionsService,
  endpoints: {
    login: typeof api.identityLogin | typeof api.authLogin;
    refresh: typeof api.identityRefresh | typeof api.authRefresh;
    logout: typeof api.identityLogout | typeof api.authLogout;
  },
) {
  return [
    route(endpoints.login, async (request) => sessions.login(request.caller, request.body)),
    route(endpoints.refresh, async (request) => sessions.refresh(request.caller, request.body)),
    route(endpoints.logout, async (request) => sessions.logout(request.caller, request.body)),
  ];
}

/** The host-root session routes: `/auth/signup`, `/auth/verify-code`, `/auth/resend-code`, `/identity/*`. */
export function hostRootSessionRoutes(sessions: SessionsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.signup, async (request) => sessions.signup(request.caller, request.body)),
      route(api.verifyCode, async (request) => sessions.verifyCode(request.caller, request.body)),
      route(api.resendCode, async (request) => sessions.resendCode(request.caller, request.body)),
      ...sessionRoutes(sessions, { login: api.identityLogin, refresh: api.identityRefresh, logout: api.identityLogout }),
      route(api.identityMe, async (request) => sessions.me(requireActor(request.caller))),
    ]);
  };
}

/** `/api/v1/auth/login|refresh|logout`: the same operations under the versioned prefix. */
export function versionedSessionRoutes(sessions: SessionsService) {
  return async (app: HttpApp) => {
    serveRoutes(
      app,
      WORKSPACE_SURFACE,
      sessionRoutes(sessions, { login: api.authLogin, refresh: api.authRefresh, logout: api.authLogout }),
    );
  };
}

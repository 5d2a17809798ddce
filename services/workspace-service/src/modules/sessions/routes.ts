import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { requireActor } from '../access/index.js';
import { AUDIT } from '../audit/index.js';
import type { SessionsService } from './service.js';

const PUBLIC = { tier: 'public', access: 'public' } as const;

/** Login, refresh and logout: served at the host root (`/identity/*`) and under `/api/v1/auth/*`. */
function sessionRoutes(
  app: HttpApp,
  sessions: SessionsService,
  endpoints: {
    login: typeof api.identityLogin | typeof api.authLogin;
    refresh: typeof api.identityRefresh | typeof api.authRefresh;
    logout: typeof api.identityLogout | typeof api.authLogout;
  },
) {
  serveEndpoint(app, endpoints.login, { config: { ...PUBLIC, audit: AUDIT.login } }, async (request) =>
    envelope(request, await sessions.login(request.caller, request.body)),
  );
  serveEndpoint(app, endpoints.refresh, { config: { ...PUBLIC, audit: AUDIT.refresh } }, async (request) =>
    envelope(request, await sessions.refresh(request.caller, request.body)),
  );
  serveEndpoint(app, endpoints.logout, { config: { ...PUBLIC, audit: AUDIT.logout } }, async (request) =>
    envelope(request, await sessions.logout(request.caller, request.body)),
  );
}

/** The host-root session routes: `/auth/signup`, `/auth/verify-code`, `/auth/resend-code`, `/identity/*`. */
export function hostRootSessionRoutes(sessions: SessionsService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.signup, { config: { ...PUBLIC, audit: AUDIT.signup } }, async (request, reply) =>
      reply.code(201).send(envelope(request, await sessions.signup(request.caller, request.body))),
    );
    serveEndpoint(app, api.verifyCode, { config: { ...PUBLIC, audit: AUDIT.verifyEmail } }, async (request) =>
      envelope(request, await sessions.verifyCode(request.caller, request.body)),
    );
    serveEndpoint(app, api.resendCode, { config: { ...PUBLIC, audit: AUDIT.resendCode } }, async (request) =>
      envelope(request, await sessions.resendCode(request.caller, request.body)),
    );
    sessionRoutes(app, sessions, { login: api.identityLogin, refresh: api.identityRefresh, logout: api.identityLogout });
    serveEndpoint(app, api.identityMe, { config: { tier: 'high' } }, async (request) =>
      envelope(request, await sessions.me(requireActor(request.caller))),
    );
  };
}

/** `/api/v1/auth/login|refresh|logout`: the same operations under the versioned prefix. */
export function versionedSessionRoutes(sessions: SessionsService) {
  return async (app: HttpApp) => {
    sessionRoutes(app, sessions, { login: api.authLogin, refresh: api.authRefresh, logout: api.authLogout });
  };
}

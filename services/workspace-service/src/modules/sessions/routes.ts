import {
  LoginBody,
  LogoutBody,
  MessageResult,
  RefreshBody,
  ResendCodeBody,
  ResendCodeResult,
  SessionTokens,
  SignupBody,
  SignupResult,
  UserRecord,
  VerifyCodeBody,
  VerifyCodeResult,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { AUDIT } from '../audit/actions.js';
import type { SessionsService } from './service.js';

const TAG = 'session';

/** Login, refresh and logout: served at the host root (`/identity/*`) and under `/api/v1/auth/*`. */
function sessionRoutes(
  app: HttpApp,
  sessions: SessionsService,
  paths: { login: string; refresh: string; logout: string },
  idPrefix: string,
) {
  app.post(
    paths.login,
    {
      config: { tier: 'public', access: 'public', audit: AUDIT.login },
      schema: {
        tags: [TAG],
        summary: 'Log in with e-mail and password',
        description:
          'The e-mail is compared in lower case. Answers an access token (JWT, 3600 s) and a refresh token (single use, rotated by each refresh). ' +
          'Unverified, inactive and suspended accounts get 401; after 5 failed attempts within 15 minutes for one account from one client address, that pair backs off (1 s, doubling up to 15 minutes; 429 with Retry-After); other addresses are not affected.',
        operationId: `${idPrefix}Login`,
        body: LoginBody,
        response: { 200: ok(SessionTokens), ...errorResponses(401) },
      },
    },
    async (request) => envelope(request, await sessions.login(request.caller, request.body)),
  );
  app.post(
    paths.refresh,
    {
      config: { tier: 'public', access: 'public', audit: AUDIT.refresh },
      schema: {
        tags: [TAG],
        summary: 'Exchange a refresh token for new tokens',
        description:
          'The refresh token is single use: the answer holds a new one. Presenting an already used refresh token revokes the whole session ' +
          '(every token issued since that login) and answers 401.',
        operationId: `${idPrefix}Refresh`,
        body: RefreshBody,
        response: { 200: ok(SessionTokens), ...errorResponses(401) },
      },
    },
    async (request) => envelope(request, await sessions.refresh(request.caller, request.body)),
  );
  app.post(
    paths.logout,
    {
      config: { tier: 'public', access: 'public', audit: AUDIT.logout },
      schema: {
        tags: [TAG],
        summary: 'Log out: the refresh token stops working at once',
        description:
          'Ends the session of the refresh token (every refresh token of that login). Access tokens already issued stay valid until they expire. ' +
          'Answers 200 for an unknown or already ended token too.',
        operationId: `${idPrefix}Logout`,
        body: LogoutBody,
        response: { 200: ok(MessageResult) },
      },
    },
    async (request) => envelope(request, await sessions.logout(request.caller, request.body)),
  );
}

/** The host-root session routes: `/auth/signup`, `/auth/verify-code`, `/auth/resend-code`, `/identity/*`. */
export function hostRootSessionRoutes(sessions: SessionsService) {
  return async (app: HttpApp) => {
    app.post(
      '/auth/signup',
      {
        config: { tier: 'public', access: 'public', audit: AUDIT.signup },
        schema: {
          tags: [TAG],
          summary: 'Sign up: create an account and get a verification code',
          description:
            'Creates an ADMIN account without a workspace (create one with POST /api/v1/workspaces once verified). The password needs 12 to 128 ' +
            'characters with an upper-case letter, a lower-case letter, a number and a special character. A 6-digit code valid 15 minutes is ' +
            'e-mailed; in `local` and `staging` it is also returned as `verificationCode`, in production only e-mailed. If the e-mail cannot be ' +
            'sent, nothing is created (503) and the call can be repeated.',
          operationId: 'signup',
          body: SignupBody,
          response: { 201: ok(SignupResult), ...errorResponses(409, 503) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(request, await sessions.signup(request.caller, request.body))),
    );
    app.post(
      '/auth/verify-code',
      {
        config: { tier: 'public', access: 'public', audit: AUDIT.verifyEmail },
        schema: {
          tags: [TAG],
          summary: 'Verify the e-mail address with the code',
          description:
            'A wrong code counts an attempt (5 per code); an expired or used-up code answers 400 `INVALID_CODE` (request another with ' +
            'POST /auth/resend-code). The code is consumed only when verification succeeds, so a failure on our side keeps it usable.',
          operationId: 'verifyCode',
          body: VerifyCodeBody,
          response: { 200: ok(VerifyCodeResult) },
        },
      },
      async (request) => envelope(request, await sessions.verifyCode(request.caller, request.body)),
    );
    app.post(
      '/auth/resend-code',
      {
        config: { tier: 'public', access: 'public', audit: AUDIT.resendCode },
        schema: {
          tags: [TAG],
          summary: 'Send a new verification code',
          description:
            'Replaces the code of an unverified account (at most one a minute: 429 otherwise). The answer is the same for unknown and verified ' +
            'addresses; in `local` and `staging` it carries the new code.',
          operationId: 'resendCode',
          body: ResendCodeBody,
          response: { 200: ok(ResendCodeResult), ...errorResponses(503) },
        },
      },
      async (request) => envelope(request, await sessions.resendCode(request.caller, request.body)),
    );
    sessionRoutes(app, sessions, { login: '/identity/login', refresh: '/identity/refresh', logout: '/identity/logout' }, 'identity');
    app.get(
      '/identity/me',
      {
        config: { tier: 'high' },
        schema: {
          tags: [TAG],
          summary: 'The account behind the access token',
          operationId: 'identityMe',
          security: BEARER,
          response: { 200: ok(UserRecord), ...errorResponses(401, 404) },
        },
      },
      async (request) => envelope(request, await sessions.me(requireActor(request.caller))),
    );
  };
}

/** `/api/v1/auth/login|refresh|logout`: the same operations under the versioned prefix. */
export function versionedSessionRoutes(sessions: SessionsService) {
  return async (app: HttpApp) => {
    sessionRoutes(app, sessions, { login: '/auth/login', refresh: '/auth/refresh', logout: '/auth/logout' }, 'auth');
  };
}

import { SuccessEnvelope as ok } from '../../common/envelope.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { MessageResult } from '../common.js';
import {
  LoginBody,
  LogoutBody,
  RefreshBody,
  ResendCodeBody,
  ResendCodeResult,
  SessionTokens,
  SignupBody,
  SignupResult,
  UserRecord,
  VerifyCodeBody,
  VerifyCodeResult,
} from '../identity.js';
import { resource } from './define.js';

// sessions

const endpoint = resource({ tags: ['session'] });

export const signup = endpoint('POST /auth/signup', {
  operationId: 'signup',
  summary: 'Sign up: create an account and get a verification code',
  description:
    'Creates an ADMIN account without a workspace (create one with POST /api/v1/workspaces once verified). The password needs 12 to 128 ' +
    'characters with an upper-case letter, a lower-case letter, a number and a special character. A 6-digit code valid 15 minutes is ' +
    'e-mailed; in `local` and `staging` it is also returned as `verificationCode`, in production only e-mailed. If the e-mail cannot be ' +
    'sent, nothing is created (503) and the call can be repeated.',
  access: 'public',
  tier: 'public',
  audit: WORKSPACE_AUDIT.signup,
  body: SignupBody,
  response: { 201: ok(SignupResult) },
  errors: [409, 503],
});

export const verifyCode = endpoint('POST /auth/verify-code', {
  operationId: 'verifyCode',
  summary: 'Verify the e-mail address with the code',
  description:
    'A wrong code counts an attempt (5 per code); an expired or used-up code answers 400 `INVALID_CODE` (request another with ' +
    'POST /auth/resend-code). The code is consumed only when verification succeeds, so a failure on our side keeps it usable.',
  access: 'public',
  tier: 'public',
  audit: WORKSPACE_AUDIT.verifyEmail,
  body: VerifyCodeBody,
  response: { 200: ok(VerifyCodeResult) },
});

export const resendCode = endpoint('POST /auth/resend-code', {
  operationId: 'resendCode',
  summary: 'Send a new verification code',
  description:
    'Replaces the code of an unverified account (at most one a minute: 429 otherwise). The answer is the same for unknown and verified ' +
    'addresses; in `local` and `staging` it carries the new code.',
  access: 'public',
  tier: 'public',
  audit: WORKSPACE_AUDIT.resendCode,
  body: ResendCodeBody,
  response: { 200: ok(ResendCodeResult) },
  errors: [503],
});

// Login, refresh and logout are served at the host root (`/identity/*`) and again under `/api/v1/auth/*`:
// one operation each, under two paths and operation ids.
const login = {
  access: 'public',
  summary: 'Log in with e-mail and password',
  description:
    'The e-mail is compared in lower case. Answers an access token (JWT, 3600 s) and a refresh token (single use, rotated by each refresh). ' +
    'Unverified, inactive and suspended accounts get 401; after 5 failed attempts within 15 minutes for one account from one client address, that pair backs off (1 s, doubling up to 15 minutes; 429 with Retry-After); other addresses are not affected.',
  tier: 'public',
  audit: WORKSPACE_AUDIT.login,
  body: LoginBody,
  response: { 200: ok(SessionTokens) },
  errors: [401],
} as const;
const refresh = {
  access: 'public',
  summary: 'Exchange a refresh token for new tokens',
  description:
    'The refresh token is single use: the answer holds a new one. Presenting an already used refresh token revokes the whole session ' +
    '(every token issued since that login) and answers 401.',
  tier: 'public',
  audit: WORKSPACE_AUDIT.refresh,
  body: RefreshBody,
  response: { 200: ok(SessionTokens) },
  errors: [401],
} as const;
const logout = {
  access: 'public',
  summary: 'Log out: the refresh token stops working at once',
  description:
    'Ends the session of the refresh token (every refresh token of that login). Access tokens already issued stay valid until they expire. ' +
    'Answers 200 for an unknown or already ended token too.',
  tier: 'public',
  audit: WORKSPACE_AUDIT.logout,
  body: LogoutBody,
  response: { 200: ok(MessageResult) },
} as const;

export const identityLogin = endpoint('POST /identity/login', { ...login, operationId: 'identityLogin' });
export const identityRefresh = endpoint('POST /identity/refresh', { ...refresh, operationId: 'identityRefresh' });
export const identityLogout = endpoint('POST /identity/logout', { ...logout, operationId: 'identityLogout' });

export const identityMe = endpoint('GET /identity/me', {
  operationId: 'identityMe',
  summary: 'The account behind the access token',
  tier: 'high',
  response: { 200: ok(UserRecord) },
  errors: [404],
});

export const authLogin = endpoint('POST /auth/login', { ...login, operationId: 'authLogin' });
export const authRefresh = endpoint('POST /auth/refresh', { ...refresh, operationId: 'authRefresh' });
export const authLogout = endpoint('POST /auth/logout', { ...logout, operationId: 'authLogout' });

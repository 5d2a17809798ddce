// The public face of the sessions module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { LOGIN_FAILURE_WINDOW_MS, LOGIN_LOCK_MS, type SessionsRepository, sessionFamilyStatements } from './repository.js';

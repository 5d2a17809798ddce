// The public face of the users module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { auditedUser, normalizeEmail, toUserRecord } from './records.js';
export { isDuplicateEmail, type UserRow, type UsersRepository } from './repository.js';
export { users } from './tables.js';

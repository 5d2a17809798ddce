import { randomUUID } from 'node:crypto';
import { FormData } from 'undici';
import { accessClaims, type Harness, signJwt, uniqueEmail } from './harness.js';

/** A real 1x1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** The first bytes of a JPEG. */
export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 1)]);

export function imageForm(data: Buffer = PNG, type = 'image/png', field = 'file', filename = 'avatar.png'): FormData {
  const form = new FormData();
  form.append(field, new Blob([data], { type }), filename);
  return form;
}

/**
 * A session of the user inserted straight into the table (no login, no refresh token): what an
 * access token made by `tokenFor` names. A token whose session does not exist is refused.
 */
export async function insertSession(h: Harness, userId: string): Promise<string> {
  const id = randomUUID();
  await h.sql`insert into workspace.sessions (id, user_id, environment) values (${id}, ${userId}, 'sandbox')`;
  return id;
}

/** A valid access token of a user's session, without a login. */
export function tokenFor(userId: string, sessionId: string): string {
  return signJwt(accessClaims(userId, sessionId, Math.floor(Date.now() / 1000), 3600));
}

/**
 * Inserts users straight into the table with an existing user's password hash, each with a session
 * and its access token: fresh principals for destructive cases without paying an argon2 hash each.
 */
export async function insertUser(
  h: Harness,
  fields: { role: 'SUPER_ADMIN' | 'ADMIN' | 'CLIENT'; workspaceId: string | null; passwordHashOf: string },
): Promise<{ id: string; email: string; token: string }> {
  const id = randomUUID();
  const email = uniqueEmail(fields.role.toLowerCase());
  await h.sql`
    insert into workspace.users (id, email, password_hash, role, status, workspace_id, email_verified, first_name, last_name)
    select ${id}, ${email}, password_hash, ${fields.role}, 'active', ${fields.workspaceId}, true, 'Fresh', 'User'
    from workspace.users where id = ${fields.passwordHashOf}`;
  return { id, email, token: tokenFor(id, await insertSession(h, id)) };
}

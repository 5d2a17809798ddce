import { expect } from 'vitest';
import { type Answer, type Harness, PASSWORD, uniqueEmail } from './harness.js';

// What the session-revocation tests (one instance, two instances) share.

/** A verified CLIENT of the admin's workspace with its own password (so it can be changed and reset), made through `call`. */
export async function createMember(call: Harness['call'], adminToken: string): Promise<{ email: string; id: string }> {
  const email = uniqueEmail('member');
  const created = await call('POST', '/api/v1/users', {
    token: adminToken,
    body: { email, password: PASSWORD, role: 'client', firstName: 'Mem', lastName: 'Ber' },
  });
  expect(created.status, created.text).toBe(201);
  return { email, id: created.body.data.id as string };
}

/** The answer to an access token whose session ended: 401 UNAUTHORIZED, saying `reason`. */
export function expectEnded(res: Answer, reason: string): void {
  expect(res.status, res.text).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED' });
  expect(res.body.error.message).toContain(reason);
}

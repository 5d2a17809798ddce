import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, PASSWORD, startHarness, uniqueEmail } from '../support/harness.js';

// Issue 13 item 7 (docs/workspace-sessions-and-roles.md): the login lockout is no weapon. An
// attacker who knows a victim's e-mail fails its logins from its own address again and again: the
// attacker's address backs off (doubling), the victim logs in from its own address as always.
// The two addresses come from X-Forwarded-For behind one trusted proxy hop (TRUST_PROXY=1).

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ TRUST_PROXY: '1' });
});
afterAll(async () => h?.stop());

const from = (address: string) => ({ 'x-forwarded-for': address });

it("an attacker's failures back off the attacker's address only; the owner logs in from its own", async () => {
  const email = uniqueEmail('victim');
  const signup = await h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Vic', lastName: 'Tim' } });
  await h.call('POST', '/auth/verify-code', { body: { email, code: signup.body.data.verificationCode } });

  const attacker = from('203.0.113.66');
  const statuses: number[] = [];
  for (let i = 0; i < 12; i += 1) {
    statuses.push((await h.call('POST', '/identity/login', { headers: attacker, body: { email, password: 'Guess!Passw0rd' } })).status);
  }
  expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
  expect(statuses.slice(5)).toContain(429);
  const backedOff = await h.call('POST', '/identity/login', { headers: attacker, body: { email, password: PASSWORD } });
  expect(backedOff.status).toBe(429);
  expect(Number(backedOff.headers['retry-after'])).toBeGreaterThanOrEqual(1);

  const owner = await h.call('POST', '/identity/login', { headers: from('198.51.100.7'), body: { email, password: PASSWORD } });
  expect(owner.status, owner.text).toBe(200);
  expect(owner.body.data.accessToken).toEqual(expect.any(String));
});

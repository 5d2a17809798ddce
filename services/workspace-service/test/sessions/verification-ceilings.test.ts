import { describe, expect, it } from 'vitest';
import {
  VERIFICATION_CODES_PER_ACCOUNT,
  VERIFICATION_FAILURES_PER_ACCOUNT,
  VERIFICATION_MAX_ATTEMPTS,
} from '../../src/modules/sessions/service.js';
import { PASSWORD, uniqueEmail, worldPerFile } from '../support/harness.js';

// Issue 28 item 9: verification codes have a per-account ceiling over all their codes. Each new
// code (one a minute) reset the 5 attempts, so an attacker who knows an address could try the
// million codes 5 a minute for ever; and codes could be asked for without end.

const { h } = worldPerFile();

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const verify = (email: string, code: string) => h.call('POST', '/auth/verify-code', { body: { email, code } });
const rowOf = async (userId: string) =>
  (await h.sql`select attempts, codes_issued, failed_total from workspace.verification_codes where user_id = ${userId}`)[0];

/** A resend once the minute between codes has passed. */
async function resend(email: string, userId: string) {
  await h.sql`update workspace.verification_codes set created_at = now() - interval '2 minutes' where user_id = ${userId}`;
  const res = await h.call('POST', '/auth/resend-code', { body: { email } });
  expect(res.status).toBe(200);
  return res.body.data as { message: string; verificationCode?: string };
}

async function signup(tag: string) {
  const email = uniqueEmail(tag);
  const res = await h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' } });
  expect(res.status).toBe(201);
  return { email, userId: res.body.data.user.id as string, code: res.body.data.verificationCode as string };
}

describe('verification codes (security)', () => {
  it(`stops at ${VERIFICATION_FAILURES_PER_ACCOUNT} wrong codes over all the account's codes: then even the right code is refused and no new code is sent`, async () => {
    const account = await signup('guessed');
    let code = account.code;
    for (let round = 0; round * VERIFICATION_MAX_ATTEMPTS < VERIFICATION_FAILURES_PER_ACCOUNT; round++) {
      if (round > 0) code = (await resend(account.email, account.userId)).verificationCode as string;
      for (let i = 0; i < VERIFICATION_MAX_ATTEMPTS; i++) {
        const res = await verify(account.email, wrong(code));
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('INVALID_CODE');
      }
    }
    expect(await rowOf(account.userId)).toMatchObject({ failed_total: VERIFICATION_FAILURES_PER_ACCOUNT });
    // Before: the next resend reset the attempts and the guessing went on.
    const after = await resend(account.email, account.userId);
    expect(after).toEqual({ message: 'If an unverified account exists for this address, a new code was sent' });
    const right = await verify(account.email, code);
    expect(right.status).toBe(400);
    expect(right.body.error.code).toBe('INVALID_CODE');
    const [user] = await h.sql`select email_verified from workspace.users where id = ${account.userId}`;
    expect(user?.email_verified).toBe(false);
  });

  it(`sends at most ${VERIFICATION_CODES_PER_ACCOUNT} codes to an account, sign-up's included; the last one still verifies`, async () => {
    const account = await signup('resent');
    let code = account.code;
    for (let sent = 1; sent < VERIFICATION_CODES_PER_ACCOUNT; sent++) {
      code = (await resend(account.email, account.userId)).verificationCode as string;
      expect(code).toMatch(/^\d{6}$/);
    }
    expect(await rowOf(account.userId)).toMatchObject({ codes_issued: VERIFICATION_CODES_PER_ACCOUNT, failed_total: 0 });
    const refused = await resend(account.email, account.userId);
    expect(refused.verificationCode).toBeUndefined();
    expect(await rowOf(account.userId)).toMatchObject({ codes_issued: VERIFICATION_CODES_PER_ACCOUNT });
    const ok = await verify(account.email, code);
    expect(ok.status).toBe(200);
    expect(await rowOf(account.userId)).toBeUndefined();
  });
});

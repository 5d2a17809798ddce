import { type FieldError, PASSWORD_POLICY } from '@holdfast/contracts';
import argon2 from 'argon2';

/**
 * Passwords are hashed with argon2id (docs/adr/0002-workspace-sessions.md): 19 MiB of memory,
 * 2 passes, 1 lane, the OWASP baseline. The encoded hash carries its parameters, so they can be
 * raised later and old hashes still verify.
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/**
 * Spends the time of a real verification, so an unknown e-mail answers as slowly as a wrong
 * password. The throwaway hash is made once per service, when first needed.
 */
export function createTimingEqualiser(): (password: string) => Promise<void> {
  let throwaway: Promise<string> | undefined;
  return async (password) => {
    throwaway ??= hashPassword('holdfast-timing-equaliser-Aa1!');
    await verifyPassword(await throwaway, password);
  };
}

/** The policy's complaints about a password, as field errors (empty when it passes). */
export function passwordPolicyErrors(password: string, field: string): FieldError[] {
  const missing: string[] = [];
  if (!/[A-Z]/.test(password)) missing.push('an upper-case letter');
  if (!/[a-z]/.test(password)) missing.push('a lower-case letter');
  if (!/[0-9]/.test(password)) missing.push('a number');
  if (!/[^A-Za-z0-9]/.test(password)) missing.push('a special character');
  const reasons: string[] = [];
  if (password.length < PASSWORD_POLICY.minLength) reasons.push(`must be at least ${PASSWORD_POLICY.minLength} characters`);
  if (missing.length > 0) reasons.push(`must contain ${missing.join(', ')}`);
  return reasons.length > 0 ? [{ field, reason: reasons.join('; ') }] : [];
}

import { randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_PATTERN, API_KEY_PATTERN, type AppEnv, CLIENT_ID_PATTERN, CLIENT_SECRET_PATTERN } from '@holdfast/contracts';
import { safeEqual, tokenHash } from '@holdfast/secrets';

// Every credential Holdfast issues is 256 random bits in base62 behind a recognisable prefix, and
// is stored only as its SHA-256. A slow password hash (argon2, bcrypt) buys nothing for secrets
// this long and would put tens of milliseconds of CPU on every request: see
// docs/adr/0002-credential-verification.md.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters from the CSPRNG, without modulo bias (bytes >= 248 are skipped). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** 43 base62 characters carry 256 bits. */
const SECRET_CHARS = 43;

export function newApiKey(appEnv: AppEnv): string {
  return `${appEnv === 'production' ? 'hf_live_' : 'hf_test_'}${randomBase62(SECRET_CHARS)}`;
}
export const newClientId = () => `hf_client_${randomBase62(24)}`;
export const newClientSecret = () => `hf_secret_${randomBase62(SECRET_CHARS)}`;
export const newAccessToken = () => `hf_at_${randomBase62(SECRET_CHARS)}`;

/** What the database stores of a credential: hex SHA-256. */
export function credentialHash(secret: string): string {
  return tokenHash(secret);
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  return safeEqual(credentialHash(secret), storedHash);
}

/** `hf_test_Ab3d…x9Qz`: recognisable in a list, useless as a credential. */
export function keyHint(apiKey: string): string {
  return `${apiKey.slice(0, 12)}…${apiKey.slice(-4)}`;
}

const API_KEY = new RegExp(API_KEY_PATTERN);
const ACCESS_TOKEN = new RegExp(ACCESS_TOKEN_PATTERN);
const CLIENT_ID = new RegExp(CLIENT_ID_PATTERN);
const CLIENT_SECRET = new RegExp(CLIENT_SECRET_PATTERN);

export const looksLikeApiKey = (value: string) => API_KEY.test(value);
export const looksLikeAccessToken = (value: string) => ACCESS_TOKEN.test(value);
export const looksLikeClientId = (value: string) => CLIENT_ID.test(value);
export const looksLikeClientSecret = (value: string) => CLIENT_SECRET.test(value);

/** Live keys belong to production, test keys to local and staging. */
export function keyMatchesEnvironment(apiKey: string, appEnv: AppEnv): boolean {
  return apiKey.startsWith(appEnv === 'production' ? 'hf_live_' : 'hf_test_');
}

import type { SecretBox } from '@holdfast/secrets';
import { type SubscriptionRow, secretContext } from '../subscriptions/index.js';
import { type SigningSecret, signingSecret } from './signing.js';

/** Subscriptions whose opened secrets are kept at most; beyond it the cache starts again empty. */
const CACHED_SUBSCRIPTIONS_MAX = 10_000;

type SealedSecrets = Pick<SubscriptionRow, 'id' | 'secretSealed' | 'previousSecretSealed'>;

/**
 * The signing secrets of a subscription, newest first (two during a rotation), opened (and their
 * Standard Webhooks keys decoded) once and kept in memory rather than decrypted for every attempt. An entry is used only while the sealed
 * values it was opened from are the ones the claim read: a rotation, the end of a rotation or a
 * re-encryption under a new DATA_ENCRYPTION_KEY changes them, so the next attempt opens the new
 * ones (in every instance, with no message between instances).
 */
export function createSigningSecrets(secrets: SecretBox) {
  const opened = new Map<string, { sealed: string; previous: string | null; secrets: SigningSecret[] }>();
  return (row: SealedSecrets): SigningSecret[] => {
    const cached = opened.get(row.id);
    if (cached && cached.sealed === row.secretSealed && cached.previous === row.previousSecretSealed) return cached.secrets;
    const context = secretContext(row.id);
    const newest = signingSecret(secrets.open(row.secretSealed, context));
    const open = row.previousSecretSealed ? [newest, signingSecret(secrets.open(row.previousSecretSealed, context))] : [newest];
    if (opened.size >= CACHED_SUBSCRIPTIONS_MAX) opened.clear();
    opened.set(row.id, { sealed: row.secretSealed, previous: row.previousSecretSealed, secrets: open });
    return open;
  };
}

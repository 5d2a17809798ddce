import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, loggedHeaders, signingSecret, standardWebhooksKey } from '../../src/modules/deliveries/signing.js';

// The example in docs/webhooks.md is what the dispatcher produces, and what the official library accepts.
const docs = readFileSync(new URL('../../../../docs/webhooks.md', import.meta.url), 'utf8');
const example = /```http\n([\s\S]*?)\n```/.exec(docs)![1]!;
const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(example)![1]!;
const body = example.split('\n\n')[1]!;
const secret = /secret\s+`(whsec_[^`]+)`/.exec(docs)![1]!;

describe('signatures', () => {
  it('match the verifiable example in docs/webhooks.md', () => {
    const headers = deliveryHeaders({
      body,
      eventType: header('X-Webhook-Event'),
      deliveryId: header('X-Webhook-Delivery'),
      timestamp: Number(header('webhook-timestamp')),
      secrets: [signingSecret(secret)],
    });
    expect(headers['x-webhook-signature']).toBe(header('X-Webhook-Signature'));
    expect(headers['webhook-signature']).toBe(header('webhook-signature'));
    expect(headers['webhook-id']).toBe(header('X-Webhook-Delivery'));
    // The library, told to skip its freshness check (the example is in the past), accepts it.
    const wh = new Webhook(secret);
    expect(wh.sign(headers['webhook-id']!, new Date(Number(headers['webhook-timestamp']) * 1000), body)).toBe(headers['webhook-signature']);
  });

  it('keys Standard Webhooks by the bytes after whsec_, and lists rotation signatures newest first', () => {
    expect(standardWebhooksKey(secret)).toHaveLength(32);
    const signedBy = (...secrets: string[]) =>
      deliveryHeaders({ body: '{}', eventType: 't', deliveryId: 'd', timestamp: 1, secrets: secrets.map(signingSecret) });
    const two = signedBy('whsec_bmV3', 'whsec_b2xk');
    const [newest, previous] = two['x-webhook-signature']!.split(',');
    expect(newest).toBe(signedBy('whsec_bmV3')['x-webhook-signature']);
    expect(previous).toBe(signedBy('whsec_b2xk')['x-webhook-signature']);
    expect(two['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(loggedHeaders(two)).toMatchObject({ 'x-webhook-signature': '[redacted]', 'webhook-signature': '[redacted]', 'webhook-id': 'd' });
  });
});

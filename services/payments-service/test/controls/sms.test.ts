import type { AppEnv } from '@holdfast/contracts';
import { capturingLogger } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { createLogSmsGateway, maskPhone, type SmsGateway, type SmsMessage } from '../../src/modules/controls/sms.js';

// The SMS gateway is a third party: its adapter contract is checked on the local gateway (what
// runs here) and on the capturing stand-in the controls tests use, so both keep the same promise.

/** What the adapter logged, in the service's own format. */
const capture = () => capturingLogger('sms-test');

const message: SmsMessage = {
  to: '+14155550123',
  text: 'Your Holdfast verification code is 042917.',
  code: '042917',
  transactionId: '01a20056-cf27-7446-b9a6-b6f8c4732b82',
  purpose: 'two_factor',
};

function capturing(): SmsGateway {
  let n = 0;
  return { provider: 'stand-in', send: async () => ({ messageId: `m-${++n}` }) };
}

const gateways: [string, () => SmsGateway][] = [
  ['local log gateway', () => createLogSmsGateway({ logger: capture().logger, appEnv: 'local' })],
  ['capturing stand-in', capturing],
];

describe.each(gateways)('SmsGateway contract: %s', (_name, make) => {
  it('names its provider and answers a distinct message id per accepted message', async () => {
    const gateway = make();
    expect(gateway.provider).toMatch(/\S/);
    const first = await gateway.send(message);
    const second = await gateway.send({ ...message, purpose: 'vendor_sms' });
    expect(first.messageId).toMatch(/\S/);
    expect(second.messageId).not.toBe(first.messageId);
  });
});

describe('the local log gateway', () => {
  it('writes the code to the log at info, with the phone number masked', async () => {
    const { lines, logger } = capture();
    await createLogSmsGateway({ logger, appEnv: 'local' }).send(message);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', smsCode: '042917', to: '+1******0123', transactionId: message.transactionId });
    expect(JSON.stringify(lines[0])).not.toContain('+14155550123');
  });

  it.each(['production'] as AppEnv[])('never logs the code in %s', async (appEnv) => {
    const { lines, logger } = capture();
    await createLogSmsGateway({ logger, appEnv }).send(message);
    expect(lines[0]).toMatchObject({ level: 'warn', to: '+1******0123' });
    expect(JSON.stringify(lines)).not.toContain('042917');
  });

  it('masks phone numbers to their country prefix and last four digits', () => {
    expect(maskPhone('+447700900123')).toBe('+4*******0123');
    expect(maskPhone('+12345')).toBe('******');
  });
});

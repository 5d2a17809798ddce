import type { CheckoutTypedData } from '@holdfast/contracts';
import type { Hex, LocalAccount } from 'viem';

/**
 * What a wallet does with the page's `eth_signTypedData_v4` parameter: the typed data as JSON, the
 * domain typed by `EIP712Domain` (viem derives that itself), numbers as decimal strings.
 */
export function signCheckout(account: LocalAccount, typed: CheckoutTypedData | string): Promise<Hex> {
  const t = (typeof typed === 'string' ? JSON.parse(typed) : typed) as CheckoutTypedData;
  const fields = t.types.ReceiveWithAuthorization;
  const message = Object.fromEntries(
    fields.map((f) => {
      const value = (t.message as Record<string, string>)[f.name]!;
      return [f.name, /^u?int/.test(f.type) ? BigInt(value) : value];
    }),
  );
  return account.signTypedData({
    domain: { ...t.domain, ...(t.domain.salt ? { salt: t.domain.salt as Hex } : {}) } as Parameters<
      LocalAccount['signTypedData']
    >[0]['domain'],
    types: { ReceiveWithAuthorization: fields },
    primaryType: 'ReceiveWithAuthorization',
    message,
  });
}

import { type AddressFormat, CURVE_OF_FORMAT, type Curve, type FieldError, type WalletAccountSpec } from '@holdfast/contracts';
import { ed25519 } from '@noble/curves/ed25519';
import { hmac } from '@noble/hashes/hmac';
import { sha512 } from '@noble/hashes/sha2';
import { base58 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { bytesToHex, type Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

// The built-in HD wallet (docs/adr/0066-hd-wallet-libraries.md): BIP-39 mnemonic -> seed, then
// BIP-32 on secp256k1 (@scure/bip32) for Ethereum and SLIP-0010 on ed25519 for Solana.

const HARDENED = 0x80000000;

/** A fresh 24-word BIP-39 mnemonic (256 bits of entropy from the platform CSPRNG). */
export function newMnemonic(): string {
  return generateMnemonic(wordlist, 256);
}

export function isMnemonic(text: string): boolean {
  return validateMnemonic(text, wordlist);
}

/** BIP-39 seed of a mnemonic (no passphrase). */
export function seedOf(mnemonic: string): Uint8Array {
  return mnemonicToSeedSync(mnemonic);
}

/** `m/44'/60'/0'/0/0` -> [44|H, 60|H, 0|H, 0, 0]; undefined when it is not a BIP-32 path. */
export function parsePath(path: string): number[] | undefined {
  if (!/^m(\/[0-9]{1,10}'?){1,10}$/.test(path)) return undefined;
  const indexes: number[] = [];
  for (const level of path.split('/').slice(1)) {
    const hardened = level.endsWith("'");
    const index = Number(hardened ? level.slice(0, -1) : level);
    if (!Number.isSafeInteger(index) || index >= HARDENED) return undefined;
    indexes.push(hardened ? index + HARDENED : index);
  }
  return indexes;
}

/**
 * Why an account spec cannot be derived (one reason per bad field), or [] when it can. Ethereum
 * addresses live on secp256k1, Solana addresses on ed25519 where SLIP-0010 allows only hardened levels.
 */
export function specProblems(spec: WalletAccountSpec, field: string): FieldError[] {
  const expected = CURVE_OF_FORMAT[spec.addressFormat as AddressFormat];
  if (!expected) return [{ field: `${field}.addressFormat`, reason: 'must be ADDRESS_FORMAT_ETHEREUM or ADDRESS_FORMAT_SOLANA' }];
  if (spec.curve !== expected) {
    return [{ field: `${field}.curve`, reason: `${spec.addressFormat} is derived on ${expected}, not ${spec.curve}` }];
  }
  const indexes = parsePath(spec.path);
  if (!indexes) return [{ field: `${field}.path`, reason: "must be a BIP-32 path such as m/44'/60'/0'/0/0 (indexes below 2^31)" }];
  if (spec.curve === 'CURVE_ED25519' && indexes.some((i) => i < HARDENED)) {
    return [{ field: `${field}.path`, reason: "must be hardened at every level for CURVE_ED25519 (SLIP-0010), e.g. m/44'/501'/0'/0'" }];
  }
  return [];
}

/** SLIP-0010 ed25519 derivation: hardened children only. Returns the 32-byte private key. */
export function slip10Ed25519(seed: Uint8Array, path: string): Uint8Array {
  const indexes = parsePath(path);
  if (!indexes || indexes.some((i) => i < HARDENED)) throw new TypeError(`not a hardened ed25519 path: ${path}`);
  let node = hmac(sha512, new TextEncoder().encode('ed25519 seed'), seed);
  for (const index of indexes) {
    const data = new Uint8Array(37);
    data.set(node.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, index, false);
    node = hmac(sha512, node.subarray(32), data);
  }
  return node.slice(0, 32);
}

export interface DerivedEthereum {
  curve: 'CURVE_SECP256K1';
  address: string;
  account: PrivateKeyAccount;
}

export interface DerivedSolana {
  curve: 'CURVE_ED25519';
  address: string;
  sign: (bytes: Uint8Array) => Hex;
}

export type DerivedKey = DerivedEthereum | DerivedSolana;

/** The key at `path` for an address format; the caller has checked the spec with specProblems. */
export function derive(seed: Uint8Array, addressFormat: AddressFormat, path: string): DerivedKey {
  if (addressFormat === 'ADDRESS_FORMAT_ETHEREUM') {
    const privateKey = HDKey.fromMasterSeed(seed).derive(path).privateKey;
    if (!privateKey) throw new Error(`no private key at ${path}`);
    const account = privateKeyToAccount(bytesToHex(privateKey));
    return { curve: 'CURVE_SECP256K1', address: account.address, account };
  }
  const privateKey = slip10Ed25519(seed, path);
  const publicKey = ed25519.getPublicKey(privateKey);
  return {
    curve: 'CURVE_ED25519',
    address: base58.encode(publicKey),
    sign: (bytes) => bytesToHex(ed25519.sign(bytes, privateKey)),
  };
}

export function curveOf(addressFormat: AddressFormat): Curve {
  return CURVE_OF_FORMAT[addressFormat];
}

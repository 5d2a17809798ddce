import { isDeepStrictEqual } from 'node:util';
import { AppError, type EscrowAuthorizationBody, type EscrowInstructions, notFound, type RelayResult } from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import {
  createEscrowWithAuthorizationArgs,
  createEscrowWithPermitArgs,
  type EscrowTerms,
  escrowAuthorizationTypedData,
  fundingTokenAbi,
  holdfastEscrowAbi,
  mockUsdcAbi,
  permitTypedData,
  readEip712Domain,
  receiveWithAuthorizationTypedData,
  type TransferAuthorization,
  toPermit,
  transferWithAuthorizationTypedData,
} from '@holdfast/escrow';
import type { Logger } from '@holdfast/logging';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  getAddress,
  type Hex,
  HttpRequestError,
  keccak256,
  TimeoutError,
} from 'viem';
import { toBaseUnits } from '../money/index.js';
import { type ChainAccess, refuseUnless, requireOrchestration } from '../settlement/index.js';
import {
  escrowInstructionsOf,
  nextStatus,
  type TransactionAction,
  type TransactionRow,
  type TransactionsRepository,
  toPaymentsTransaction,
} from '../transactions/index.js';
import type { RelayerChain } from './chain.js';
import type { RelayerRepository, RelayRow } from './repository.js';
import type { RelayKind } from './tables.js';

export interface RelayerSettings {
  maxFeeWeiPerPlatformPerDay: bigint;
  minBalanceWei: bigint;
  validityMarginSeconds: number;
}

export interface RelayerServiceDeps {
  sql: Sql;
  transactions: TransactionsRepository;
  repository: RelayerRepository;
  chain: ChainAccess;
  relayerChain: RelayerChain;
  settings: RelayerSettings;
  logger: Logger;
  /** Called once a relay is committed and sent: the worker follows it to its receipt. */
  wake: () => void;
}

/** Who asks: the platform (its credential), or later a checkout page acting for the platform's transaction. */
export interface RelayOwner {
  platformId: string;
}

/** The escrow's ABI with the token's errors, so that a revert the token raises inside the escrow's call decodes. */
const escrowAndTokenAbi = [...holdfastEscrowAbi, ...mockUsdcAbi.filter((item) => item.type === 'error')] as const;

/**
 * The EIP-3009 window of a checkout payer's authorization: fixed per attempt, so that the same
 * wallet signing again signs the same bytes and the relayer answers the same relay rather than a
 * second one. The first attempt's window runs from a minute before the transaction's creation to an
 * hour after. A relay that ended without a lock (`failed`: its account nonce went to another
 * transaction; `reverted`) leaves the authorization's nonce unused on chain, so the payer may sign
 * again: the next attempt's window is anchored at that relay's creation instead, and ends one more
 * second later per ended relay, which makes new bytes and so a new relay. Safe because every attempt carries the same nonce (derived from the
 * terms): whichever signature reaches the chain first locks the escrow, and no other ever can.
 */
export const CHECKOUT_AUTHORIZATION_SECONDS = 3600;
export function checkoutWindow(
  createdAt: string,
  relays: readonly Pick<RelayRow, 'status' | 'createdAt'>[] = [],
): { validAfter: number; validBefore: number } {
  const ended = relays.filter((r) => r.status === 'failed' || r.status === 'reverted').map((r) => Date.parse(r.createdAt));
  const anchor = Math.floor(Math.max(Date.parse(createdAt), ...ended) / 1000);
  // + one second per ended relay: a relay made within the second of the anchor before it would
  // otherwise get the same window (the same bytes, the same failed relay answered again).
  return { validAfter: anchor - 60, validBefore: anchor + CHECKOUT_AUTHORIZATION_SECONDS + ended.length };
}

/** What a payer's page needs to fund a transaction: the typed data to sign (null once it cannot lock), the payer's balance, the relay. */
export interface Funding {
  row: TransactionRow;
  /** The escrow instructions of the transaction's create answer. */
  escrow: EscrowInstructions | null;
  amountBaseUnits: bigint | null;
  typedData: ReturnType<typeof receiveWithAuthorizationTypedData> | null;
  balance: bigint | null;
  relay: { status: string; txHash: string } | null;
  /** The window of the authorization to sign now (checkoutWindow). */
  window: { validAfter: number; validBefore: number };
}

/** Gas limit over the estimate, in per cent (the estimate is of the state now; a block later may cost a little more). */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * What makes two relays carry the same authorization: EIP-3009 nonces are the authorizer's own
 * (the token keeps `authorizationState(authorizer, nonce)`), so a nonce alone is not one. Keyed by
 * the nonce only, a payer could pick a nonce another payer's relay carries and have a legitimate
 * payment refused as `nonce_used`.
 */
const authorizationKey = (authorizer: string, nonce: string) => `${authorizer.toLowerCase()}:${nonce.toLowerCase()}`;

/**
 * 422 AUTHORIZATION_REFUSED: the authorization cannot fund this transaction's escrow, and nothing
 * was sent. `reason` says which check refused it.
 */
export function refused(reason: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('AUTHORIZATION_REFUSED', message, { reason, ...details });
}

/** The body as stored and compared: signatures lower-case (the same signature in another case is the same request). */
function canonical(body: EscrowAuthorizationBody): Record<string, unknown> {
  return body.kind === 'authorization'
    ? { kind: body.kind, validAfter: body.validAfter, validBefore: body.validBefore, signature: body.signature.toLowerCase() }
    : {
        kind: body.kind,
        deadline: body.deadline,
        permitSignature: body.permitSignature.toLowerCase(),
        escrowSignature: body.escrowSignature.toLowerCase(),
      };
}

/** A revert's reason, as short as viem can say it. */
function revertReason(error: unknown): string {
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) {
      return reverted.data?.errorName
        ? `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(', ')})`
        : (reverted.reason ?? reverted.shortMessage);
    }
    return error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The relayer (docs/checkout.md): takes a payer's signed funding of a transaction's escrow, checks
 * everything the chain would before any gas is spent, signs the lock with the relayer key of the
 * network, stores the signed bytes with the account nonce they use, commits, then sends them. The
 * worker follows them to the receipt (and replaces them when stuck); the mined escrow moves the
 * transaction through settlement's submit-escrow-hash path.
 */
export function createRelayerService(deps: RelayerServiceDeps) {
  const { sql, transactions, repository, chain, relayerChain, settings } = deps;
  const log = deps.logger.child({ component: 'relayer' });

  async function load(owner: RelayOwner, id: string): Promise<TransactionRow> {
    const row = await transactions.find(sql, id, owner.platformId);
    if (!row) throw notFound('Transaction');
    return row;
  }

  function answer(relay: RelayRow, row: TransactionRow): RelayResult {
    return {
      relay: {
        id: relay.id,
        status: relay.status,
        txHash: relay.minedHash ?? relay.txHash,
        relayer: getAddress(relay.relayer),
        network: relay.network,
        kind: relay.kind,
        createdAt: relay.createdAt,
      },
      transaction: toPaymentsTransaction(row),
    };
  }

  /** The relay this request repeats, or a refusal when another one is live; undefined when it is to be made. */
  function existingFor(relays: RelayRow[], request: Record<string, unknown>): RelayRow | undefined {
    const same = relays.find((r) => isDeepStrictEqual(r.request, request));
    if (same) return same;
    const live = relays.find((r) => r.status === 'submitted' || r.status === 'mined');
    if (live) {
      throw new AppError('CONFLICT', `Another authorization of this transaction is relayed already (${live.status})`, {
        relayId: live.id,
        status: live.status,
        txHash: live.minedHash ?? live.txHash,
      });
    }
    return undefined;
  }

  /** The escrow's terms the transaction's create answer instructs (`escrow`), as the contract takes them. */
  function termsOf(row: TransactionRow): { escrow: Hex; terms: EscrowTerms } {
    const network = row.blockchainNetwork;
    const configured = chain.escrowTerms(network, row.currency);
    const attester = chain.requireAttester();
    const token = chain.tokenAddress(network, row.currency);
    if (!configured.contractAddress) {
      throw new AppError('CONTRACT_NOT_AVAILABLE', `No escrow contract is configured for ${network} (ESCROW_CONTRACTS)`, {
        reason: 'no_escrow',
        network,
      });
    }
    const instructions = escrowInstructionsOf(row, configured);
    const amount = toBaseUnits(row.amount);
    if (!instructions || amount === undefined) {
      throw refused('token_unsupported', `The amount of this transaction has no base units on ${network}`);
    }
    return {
      escrow: getAddress(configured.contractAddress),
      terms: {
        id: instructions.onchainId as Hex,
        sender: getAddress(row.fromAddress),
        receiver: getAddress(row.toAddress),
        token,
        amount,
        attester,
        holdDeadline: BigInt(instructions.holdDeadline),
      },
    };
  }

  /** Refuses (insufficient_balance) when `payer` holds less than `amount` of `token`. */
  async function requireBalance(network: string, token: Address, payer: Address, amount: bigint, what: string): Promise<void> {
    const balance = await chain.rpc('balanceOf', () =>
      relayerChain.client(network).readContract({ address: token, abi: mockUsdcAbi, functionName: 'balanceOf', args: [payer] }),
    );
    if (balance < amount) {
      throw refused('insufficient_balance', `The payer holds ${balance} of the ${amount} base units ${what}`, {
        balance: balance.toString(),
        amount: amount.toString(),
      });
    }
  }

  /**
   * The checked call priced for the relayer: simulated from its account on the latest state (a
   * revert here costs nothing), gas estimated with headroom, and the relayer able to pay the most
   * it can cost.
   */
  async function priced(network: string, to: Address, data: Hex, simulate: () => Promise<unknown>, what: string) {
    const account = relayerChain.requireAccount(network);
    const client = relayerChain.client(network);
    let gas: bigint;
    try {
      await simulate();
      gas = await client.estimateGas({ account: account.address, to, data });
    } catch (error) {
      if (error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) {
        throw new AppError('UPSTREAM_UNAVAILABLE', "The chain's RPC did not answer (simulation)", undefined, undefined, { cause: error });
      }
      throw refused('simulation_reverted', `${what} would revert: ${revertReason(error)}`, { revert: revertReason(error) });
    }
    const fees = await chain.rpc('estimateFeesPerGas', () => client.estimateFeesPerGas());
    const gasLimit = (gas * GAS_HEADROOM_PERCENT) / 100n;
    const maxCost = gasLimit * fees.maxFeePerGas;
    const relayerBalance = await relayerChain.balance(network, account.address);
    if (relayerBalance < maxCost) {
      log.error({ network, relayer: account.address, balance: relayerBalance.toString() }, 'the relayer cannot pay the gas: fund it');
      throw new AppError('CONTRACT_NOT_AVAILABLE', `The relayer of ${network} cannot pay the gas now; try again later`, {
        reason: 'relayer_unfunded',
        network,
      });
    }
    return { network, account, to, chainId: chain.chainId(network), data, gasLimit, maxCost, fees };
  }

  /** Refuses a window the token would refuse, or one too close to its end to be mined in time. */
  function requireWindow(validAfter: bigint, validBefore: bigint): void {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const margin = BigInt(settings.validityMarginSeconds);
    if (validAfter >= now)
      throw refused('not_yet_valid', `The authorization is valid only after ${validAfter}`, { validAfter: Number(validAfter) });
    if (validBefore <= now) throw refused('expired', 'The authorization has expired', { validBefore: Number(validBefore) });
    if (validBefore < now + margin) {
      throw refused('expires_too_soon', `The authorization must stay valid for at least ${margin} s more (validBefore)`, {
        validBefore: Number(validBefore),
        marginSeconds: Number(margin),
      });
    }
  }

  /**
   * An EIP-3009 `TransferWithAuthorization` straight to its payee (x402 `exact`), checked as the
   * token would check it, then priced; nothing is sent. The relayer calls the token's
   * `transferWithAuthorization` (anyone may submit it: the payee is in the signed message).
   */
  async function checkTransfer(network: string, token: Address, authorization: TransferAuthorization, signature: Hex) {
    relayerChain.requireAccount(network);
    const client = relayerChain.client(network);
    const payer = getAddress(authorization.from);
    const support = await chain.rpc('token', () => relayerChain.tokenSupport(network, token, payer));
    if (!support.eip3009) throw refused('token_unsupported', `The token ${token} has no EIP-3009 authorizations`, { token });
    const tokenDomain = await readEip712Domain(client, token).catch(() => {
      throw refused('token_unsupported', `The token ${token} declares no EIP-712 domain (EIP-5267 eip712Domain)`, { token });
    });
    requireWindow(authorization.validAfter, authorization.validBefore);
    const valid = await chain.rpc('verifyTypedData', () =>
      client.verifyTypedData({ ...transferWithAuthorizationTypedData({ tokenDomain, authorization }), address: payer, signature }),
    );
    if (!valid)
      throw refused('invalid_signature', "The signature is not the payer's (from) over this authorization in the token's EIP-712 domain");
    const used = await chain.rpc('authorizationState', () =>
      client.readContract({ address: token, abi: fundingTokenAbi, functionName: 'authorizationState', args: [payer, authorization.nonce] }),
    );
    if (used) throw refused('nonce_used', 'This authorization was used or canceled on chain', { nonce: authorization.nonce });
    await requireBalance(network, token, payer, authorization.value, 'the transfer takes');
    const args = [
      payer,
      getAddress(authorization.to),
      authorization.value,
      authorization.validAfter,
      authorization.validBefore,
      authorization.nonce,
      signature,
    ] as const;
    const data = encodeFunctionData({ abi: fundingTokenAbi, functionName: 'transferWithAuthorization', args });
    const simulate = () =>
      client.simulateContract({
        account: relayerChain.requireAccount(network).address,
        address: token,
        abi: mockUsdcAbi,
        functionName: 'transferWithAuthorization',
        args,
      });
    return {
      ...(await priced(network, token, data, simulate, 'The transfer')),
      derivedNonce: authorizationKey(payer, authorization.nonce),
    };
  }

  /** The call the relayer makes, once every check of the request passed (checks read the chain; nothing is sent). */
  async function verified(row: TransactionRow, body: EscrowAuthorizationBody) {
    const network = row.blockchainNetwork;
    const account = relayerChain.requireAccount(network);
    const { escrow, terms } = termsOf(row);
    const client = relayerChain.client(network);
    const chainId = chain.chainId(network);
    const payer = terms.sender;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const margin = BigInt(settings.validityMarginSeconds);

    const support = await chain.rpc('token', () => relayerChain.tokenSupport(network, terms.token, payer));
    const twoStep = `fund it with approve(${escrow}, ${terms.amount}) and createEscrow, then POST its hash to /api/v2/transactions/${row.id}/escrow-hash`;
    if (!support.eip3009 && !support.eip2612) {
      throw refused('token_unsupported', `The token ${terms.token} supports neither EIP-3009 nor EIP-2612: ${twoStep}`, {
        token: terms.token,
      });
    }
    if (body.kind === 'authorization' && !support.eip3009) {
      throw refused(
        'token_unsupported',
        `The token ${terms.token} has no EIP-3009 authorizations: sign a permit (kind permit) or ${twoStep}`,
        {
          token: terms.token,
        },
      );
    }
    if (body.kind === 'permit' && !support.eip2612) {
      throw refused(
        'token_unsupported',
        `The token ${terms.token} has no EIP-2612 permit: sign an authorization (kind authorization) or ${twoStep}`,
        {
          token: terms.token,
        },
      );
    }
    const tokenDomain = await readEip712Domain(client, terms.token).catch(() => {
      throw refused('token_unsupported', `The token ${terms.token} declares no EIP-712 domain (EIP-5267 eip712Domain): ${twoStep}`, {
        token: terms.token,
      });
    });

    let derivedNonce: string;
    let data: Hex;
    let simulate: () => Promise<unknown>;
    const from = { account: account.address, address: escrow, abi: escrowAndTokenAbi } as const;
    if (body.kind === 'authorization') {
      const validAfter = BigInt(body.validAfter);
      const validBefore = BigInt(body.validBefore);
      requireWindow(validAfter, validBefore);
      const typed = receiveWithAuthorizationTypedData({ tokenDomain, chainId, escrow, terms, window: { validAfter, validBefore } });
      const valid = await chain.rpc('verifyTypedData', () =>
        client.verifyTypedData({ ...typed, address: payer, signature: body.signature as Hex }),
      );
      if (!valid) {
        throw refused(
          'invalid_signature',
          "The signature is not the payer's (the transaction's fromAddress) over this transaction's terms, escrow and window in the token's EIP-712 domain",
        );
      }
      derivedNonce = typed.message.nonce;
      const used = await chain.rpc('authorizationState', () =>
        client.readContract({
          address: terms.token,
          abi: fundingTokenAbi,
          functionName: 'authorizationState',
          args: [payer, derivedNonce as Hex],
        }),
      );
      if (used) throw refused('nonce_used', 'This authorization was used or canceled on chain', { nonce: derivedNonce });
      const args = createEscrowWithAuthorizationArgs({
        terms,
        validAfter,
        validBefore,
        nonce: derivedNonce as Hex,
        signature: body.signature as Hex,
      });
      data = encodeFunctionData({ abi: holdfastEscrowAbi, functionName: 'createEscrowWithAuthorization', args });
      simulate = () => client.simulateContract({ ...from, functionName: 'createEscrowWithAuthorization', args });
    } else {
      const deadline = BigInt(body.deadline);
      if (deadline < now) throw refused('expired', 'The permit and its EscrowAuthorization have expired', { deadline: body.deadline });
      if (deadline < now + margin) {
        throw refused('expires_too_soon', `The permit must stay valid for at least ${margin} s more (deadline)`, {
          deadline: body.deadline,
          marginSeconds: Number(margin),
        });
      }
      const escrowTyped = escrowAuthorizationTypedData({ chainId, escrow, terms, deadline });
      const valid = await chain.rpc('verifyTypedData', () =>
        client.verifyTypedData({ ...escrowTyped, address: payer, signature: body.escrowSignature as Hex }),
      );
      if (!valid) {
        throw refused(
          'invalid_signature',
          "The EscrowAuthorization signature is not the payer's (the transaction's fromAddress) over this transaction's terms and deadline in the escrow's EIP-712 domain",
        );
      }
      const [permitNonce, allowance] = await chain.rpc('permit state', () =>
        Promise.all([
          client.readContract({ address: terms.token, abi: fundingTokenAbi, functionName: 'nonces', args: [payer] }),
          client.readContract({
            address: terms.token,
            abi: [
              {
                type: 'function',
                name: 'allowance',
                stateMutability: 'view',
                inputs: [{ type: 'address' }, { type: 'address' }],
                outputs: [{ type: 'uint256' }],
              },
            ] as const,
            functionName: 'allowance',
            args: [payer, escrow],
          }),
        ]),
      );
      const permitValid = await chain.rpc('verifyTypedData', () =>
        client.verifyTypedData({
          ...permitTypedData({ tokenDomain, escrow, terms, nonce: permitNonce, deadline }),
          address: payer,
          signature: body.permitSignature as Hex,
        }),
      );
      if (!permitValid && allowance < terms.amount) {
        throw refused(
          'invalid_permit',
          "The permit is not the payer's for this escrow, amount, deadline and the payer's current permit nonce",
        );
      }
      // The escrow's authorization names the id, and an id is created once: the id is its nonce.
      derivedNonce = terms.id;
      const args = createEscrowWithPermitArgs({
        terms,
        permit: toPermit(deadline, body.permitSignature as Hex),
        signature: body.escrowSignature as Hex,
      });
      data = encodeFunctionData({ abi: holdfastEscrowAbi, functionName: 'createEscrowWithPermit', args });
      simulate = () => client.simulateContract({ ...from, functionName: 'createEscrowWithPermit', args });
    }

    await requireBalance(network, terms.token, payer, terms.amount, 'the escrow takes');
    return {
      ...(await priced(network, escrow, data, simulate, "The escrow's creation")),
      derivedNonce: authorizationKey(payer, derivedNonce),
    };
  }

  type CheckedCall = Awaited<ReturnType<typeof priced>> & { derivedNonce: string };

  /**
   * Signs and stores the checked call for the transaction, then sends it (every relay kind): under
   * the transaction's row lock a concurrent request with the same body answers its relay, the
   * authorization's nonce is refused when another live relay carries it, the platform's daily gas
   * budget is checked, the relayer's account nonce is handed out; the signed bytes are committed
   * before they are broadcast, so a crash re-sends these bytes, never new ones.
   */
  async function submit(
    owner: RelayOwner,
    id: string,
    relay: { kind: RelayKind; request: Record<string, unknown>; action: TransactionAction },
    call: CheckedCall,
  ): Promise<{ status: 200 | 202; relay: RelayRow; row: TransactionRow }> {
    const outcome = await sql.begin(async (tx) => {
      const locked = await transactions.lock(tx, id, owner.platformId);
      if (!locked) throw notFound('Transaction');
      // A concurrent request with the same body committed first: its relay.
      const again = existingFor(await repository.ofTransaction(tx, id), relay.request);
      if (again) return { status: 200 as const, relay: again, row: locked };
      refuseUnless(locked, relay.action);
      if (await repository.nonceTaken(tx, call.network, call.derivedNonce)) {
        throw refused('nonce_used', 'This authorization is relayed already for another transaction', { nonce: call.derivedNonce });
      }
      await repository.lockPlatformBudget(tx, owner.platformId);
      const spent = await repository.spentLastDay(tx, owner.platformId);
      if (spent + call.maxCost > settings.maxFeeWeiPerPlatformPerDay) {
        throw new AppError('RELAYER_BUDGET_EXHAUSTED', "The relayer's gas budget of this platform for the last 24 hours is spent", {
          spentWei: spent.toString(),
          neededWei: call.maxCost.toString(),
          budgetWei: settings.maxFeeWeiPerPlatformPerDay.toString(),
        });
      }
      const client = relayerChain.client(call.network);
      const nonce = await repository.allocateNonce(tx, call.network, call.account.address, () =>
        chain.rpc('getTransactionCount', () => client.getTransactionCount({ address: call.account.address, blockTag: 'pending' })),
      );
      const raw = await call.account.signTransaction({
        type: 'eip1559',
        chainId: call.chainId,
        to: call.to,
        data: call.data,
        value: 0n,
        nonce,
        gas: call.gasLimit,
        maxFeePerGas: call.fees.maxFeePerGas,
        maxPriorityFeePerGas: call.fees.maxPriorityFeePerGas,
      });
      const created = await repository.insert(tx, {
        platformId: owner.platformId,
        transactionId: id,
        network: call.network,
        kind: relay.kind,
        request: relay.request,
        derivedNonce: call.derivedNonce,
        relayer: call.account.address,
        accountNonce: nonce,
        gasLimit: call.gasLimit,
        rawTx: raw,
        txHash: keccak256(raw),
        maxFeePerGas: call.fees.maxFeePerGas,
        maxPriorityFeePerGas: call.fees.maxPriorityFeePerGas,
      });
      return { status: 202 as const, relay: created, row: locked };
    });
    if (outcome.status === 200) return outcome;
    const created = outcome.relay;
    // Committed: the bytes are ours whatever happens now. A failed send is sent again by the worker.
    const failure = await relayerChain.broadcast(call.network, created.rawTx);
    if (failure)
      log.warn(
        { err: failure, relayId: created.id, txHash: created.txHash },
        'relayed transaction not accepted yet; the worker sends it again',
      );
    log.info({ relayId: created.id, transactionId: id, txHash: created.txHash, nonce: created.accountNonce, kind: relay.kind }, 'relayed');
    deps.wake();
    return outcome;
  }

  /**
   * Checks, then submits: the same request again answers its relay (before the checks, and after
   * a refusal that a concurrent identical request may have caused by being mined meanwhile).
   */
  async function checkedSubmit(
    owner: RelayOwner,
    id: string,
    relay: { kind: RelayKind; request: Record<string, unknown>; action: TransactionAction; orchestration: 'raw' | 'platform' },
    check: (row: TransactionRow) => Promise<CheckedCall>,
  ): Promise<{ status: 200 | 202; relay: RelayRow; row: TransactionRow }> {
    const row = await load(owner, id);
    const before = existingFor(await repository.ofTransaction(sql, id), relay.request);
    if (before) return { status: 200, relay: before, row };
    requireOrchestration(row, relay.orchestration);
    refuseUnless(row, relay.action);
    let call: CheckedCall;
    try {
      call = await check(row);
    } catch (error) {
      const since = existingFor(await repository.ofTransaction(sql, id), relay.request);
      if (since) return { status: 200, relay: since, row: (await transactions.find(sql, id, owner.platformId)) ?? row };
      throw error;
    }
    return submit(owner, id, relay, call);
  }

  /** POST /transactions/{id}/escrow-authorization: 202 with a new relay, 200 with the one this body made before. */
  async function relay(owner: RelayOwner, id: string, body: EscrowAuthorizationBody): Promise<{ status: 200 | 202; body: RelayResult }> {
    const out = await checkedSubmit(
      owner,
      id,
      { kind: body.kind, request: canonical(body), action: 'lock_escrow', orchestration: 'platform' },
      (row) => verified(row, body),
    );
    return { status: out.status, body: answer(out.relay, out.row) };
  }

  /** Every check `relay` makes of an escrow funding, and nothing sent (x402 verify of `holdfast-escrow`). */
  async function checkLock(owner: RelayOwner, id: string, body: EscrowAuthorizationBody): Promise<void> {
    const row = await load(owner, id);
    requireOrchestration(row, 'platform');
    refuseUnless(row, 'lock_escrow');
    await verified(row, body);
  }

  /**
   * A raw transaction paid by the payer's `TransferWithAuthorization` to its receiver (x402
   * `exact`): the worker follows it to its receipt, and settlement's submit-hash path completes
   * the transaction. The authorization must be the transaction's: payer, receiver, token and amount.
   */
  async function relayTransfer(
    owner: RelayOwner,
    id: string,
    authorization: TransferAuthorization,
    signature: Hex,
  ): Promise<{ status: 200 | 202; relay: RelayRow; row: TransactionRow }> {
    const request = {
      kind: 'transfer',
      from: authorization.from.toLowerCase(),
      to: authorization.to.toLowerCase(),
      value: authorization.value.toString(),
      validAfter: authorization.validAfter.toString(),
      validBefore: authorization.validBefore.toString(),
      nonce: authorization.nonce.toLowerCase(),
      signature: signature.toLowerCase(),
    };
    return checkedSubmit(owner, id, { kind: 'transfer', request, action: 'confirm_transfer', orchestration: 'raw' }, async (row) => {
      const token = chain.tokenAddress(row.blockchainNetwork, row.currency);
      const terms = { from: row.fromAddress, to: row.toAddress, value: toBaseUnits(row.amount) };
      if (
        authorization.from.toLowerCase() !== terms.from.toLowerCase() ||
        authorization.to.toLowerCase() !== terms.to.toLowerCase() ||
        authorization.value !== terms.value
      ) {
        throw refused(
          'terms_mismatch',
          "The authorization's from, to and value must be the transaction's fromAddress, toAddress and amount",
        );
      }
      return checkTransfer(row.blockchainNetwork, token, authorization, signature);
    });
  }

  /** A relay by id, as the platform that made it sees it. */
  async function relayOf(owner: RelayOwner, relayId: string): Promise<RelayRow | null> {
    const found = await repository.get(sql, relayId);
    return found && found.platformId === owner.platformId ? found : null;
  }

  /** GET /transactions/{id}/escrow-authorization: the latest relay of the transaction. */
  async function get(owner: RelayOwner, id: string): Promise<RelayResult> {
    const row = await load(owner, id);
    const [latest] = await repository.ofTransaction(sql, id);
    if (!latest) throw notFound('Relay');
    return answer(latest, row);
  }

  /** The token domains read so far (a token's domain is a constant of its deployment). */
  const domains = new Map<string, Awaited<ReturnType<typeof readEip712Domain>>>();

  /**
   * What the hosted checkout page shows and signs for the transaction (docs/checkout.md): the
   * `ReceiveWithAuthorization` of its terms in the token's domain with the checkout window, the
   * payer's balance of the token, and the latest relay. Reads the chain only while the transaction
   * can still lock its escrow.
   */
  async function fundingOf(owner: RelayOwner, id: string): Promise<Funding> {
    const row = await load(owner, id);
    const relays = await repository.ofTransaction(sql, id);
    const [latest] = relays;
    const relay = latest ? { status: latest.status, txHash: latest.minedHash ?? latest.txHash } : null;
    const window = checkoutWindow(row.createdAt, relays);
    const amountBaseUnits = toBaseUnits(row.amount) ?? null;
    const escrowInstructions = escrowInstructionsOf(row, chain.escrowTerms(row.blockchainNetwork, row.currency)) ?? null;
    const base = { row, escrow: escrowInstructions, amountBaseUnits, relay, window };
    if (row.orchestrationType !== 'platform' || !nextStatus(row.status, 'lock_escrow').ok)
      return { ...base, typedData: null, balance: null };
    const network = row.blockchainNetwork;
    const { escrow, terms } = termsOf(row);
    const client = relayerChain.client(network);
    const key = `${network}:${terms.token}`;
    let tokenDomain = domains.get(key);
    if (!tokenDomain) {
      tokenDomain = await chain.rpc('eip712Domain', () => readEip712Domain(client, terms.token));
      domains.set(key, tokenDomain);
    }
    const typedData = receiveWithAuthorizationTypedData({
      tokenDomain,
      chainId: chain.chainId(network),
      escrow,
      terms,
      window: { validAfter: BigInt(window.validAfter), validBefore: BigInt(window.validBefore) },
    });
    const balance = await client
      .readContract({ address: terms.token, abi: mockUsdcAbi, functionName: 'balanceOf', args: [terms.sender] })
      .catch(() => null);
    return { ...base, typedData, balance };
  }

  /** Readiness: the relayer of `network` holds at least RELAYER_MIN_BALANCE_WEI (an RPC failure is the chain check's to report). */
  async function checkFunded(network: string): Promise<void> {
    const account = relayerChain.account(network);
    if (!account) return;
    let balance: bigint;
    try {
      balance = await relayerChain.balance(network, account.address);
    } catch {
      return;
    }
    if (balance < settings.minBalanceWei) {
      throw new Error(
        `the relayer ${account.address} holds ${balance} wei, below RELAYER_MIN_BALANCE_WEI (${settings.minBalanceWei}): it cannot pay`,
      );
    }
  }

  /**
   * Whether no signature the hosted page could have had signed for this transaction can still lock
   * its escrow through the relayer or anyone who saw it: no relay in flight (`submitted`, `mined`),
   * and the window of the latest attempt (checkoutWindow, later than every earlier one) has closed.
   * The checkout expiry worker expires a `processing` session past its expiry only then.
   */
  async function authorizationsLapsed(owner: RelayOwner, id: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<boolean> {
    const row = await load(owner, id);
    const relays = await repository.ofTransaction(sql, id);
    if (relays.some((r) => r.status === 'submitted' || r.status === 'mined')) return false;
    return nowSeconds >= checkoutWindow(row.createdAt, relays).validBefore;
  }

  return {
    relay,
    checkLock,
    relayTransfer,
    checkTransfer,
    relayOf,
    ofTransaction: (id: string) => repository.ofTransaction(sql, id),
    get,
    fundingOf,
    checkFunded,
    authorizationsLapsed,
  };
}
export type RelayerService = ReturnType<typeof createRelayerService>;

/**
 * The escrow contract's ABI and bytecode as typed constants (operator contract: "The escrow contract's
 * ABI ships in the contracts package as data and as a typed const"). A subpath of its own,
 * `@holdfast/contracts/escrow`, so that the main entry stays small; nothing here imports viem.
 *
 * - typed: `holdfastEscrowAbi` (`as const`, so viem infers every function, event and error),
 *   `holdfastEscrowBytecode`, `holdfastEscrowDeployedBytecode`, and the same for `mockUsdc*`;
 * - data: `@holdfast/contracts/artifacts/HoldfastEscrow.json` and `.../MockUSDC.json`
 *   (`{contractName, sourceName, compiler, abi, bytecode, deployedBytecode}`), for tools in any language.
 *
 * Both are written by `pnpm --filter @holdfast/escrow compile` from packages/escrow/contracts/*.sol,
 * and nowhere else; the escrow package's build and tests fail when they are stale.
 */
export * from './artifacts.js';
export * from './releases.js';

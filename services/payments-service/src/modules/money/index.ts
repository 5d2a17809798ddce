// The public face of the money module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export {
  compareDecimal,
  decimalsOf,
  decimalUnits,
  normalizeAmount,
  roundHalfUp,
  sumDecimals,
  TOKEN_DECIMALS,
  toBaseUnits,
  trimDecimal,
} from './amounts.js';
export { resolveNetwork } from './networks.js';

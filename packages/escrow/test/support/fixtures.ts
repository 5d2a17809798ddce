import { type Abi, type Address, getAddress } from 'viem';
import { type CompiledContract, compileSources, readSources } from '../../scripts/compile.js';
import type { Connection } from './chain.js';

/** Compiles test/support/files/*.sol with the same pinned compiler and settings as the contracts. */
export function compileFixtures(): Map<string, CompiledContract> {
  return new Map(compileSources(readSources('test/support/files')).contracts.map((c) => [c.contractName, c]));
}

/** Deploys a compiled fixture from `deployer` and returns its address. */
export async function deployFixture(c: Connection, deployer: Address, fixture: CompiledContract): Promise<Address> {
  const hash = await c.wallet(deployer).deployContract({ abi: fixture.abi as Abi, bytecode: fixture.bytecode });
  const receipt = await c.mined(hash);
  if (!receipt.contractAddress) throw new Error(`${fixture.contractName} was not deployed`);
  return getAddress(receipt.contractAddress);
}

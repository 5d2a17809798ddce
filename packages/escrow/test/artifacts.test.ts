import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as generated from '@holdfast/contracts/escrow';
import { describe, expect, it } from 'vitest';
import { buildOutputs, exportPrefix, packageDir, SOLC_VERSION, staleOutputs } from '../scripts/compile.js';

const packageJson = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

describe('compiled outputs', () => {
  const { result, files } = buildOutputs();

  it('are committed exactly as a fresh compile writes them (run `pnpm --filter @holdfast/escrow compile`)', () => {
    expect(staleOutputs(files)).toEqual([]);
  });

  it('export the ABI and bytecodes of every contract', () => {
    expect(result.contracts.map((c) => c.contractName)).toEqual(['HoldfastEscrow', 'MockUSDC']);
    const exports = generated as Record<string, unknown>;
    for (const contract of result.contracts) {
      const prefix = exportPrefix(contract.contractName);
      expect(exports[`${prefix}Abi`]).toEqual(contract.abi);
      expect(exports[`${prefix}Bytecode`]).toBe(contract.bytecode);
      expect(exports[`${prefix}DeployedBytecode`]).toBe(contract.deployedBytecode);
    }
    expect(generated.solcVersion).toBe(result.compilerVersion);
  });

  it('come from the exact compiler and library versions pinned in package.json', () => {
    expect(packageJson.devDependencies.solc).toBe(SOLC_VERSION);
    expect(result.compilerVersion.startsWith(`${SOLC_VERSION}+`)).toBe(true);
    // The metadata hash inside the bytecode covers the OpenZeppelin sources: a range would let it drift.
    expect(packageJson.devDependencies['@openzeppelin/contracts']).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('names exports in camelCase', () => {
    expect(exportPrefix('HoldfastEscrow')).toBe('holdfastEscrow');
    expect(exportPrefix('MockUSDC')).toBe('mockUsdc');
  });
});

import { readFileSync } from 'node:fs';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

/** The compiler the escrow package pins; test fixtures are compiled with it at test time. */
const SOLC_VERSION = '0.8.37';

export interface CompiledFixture {
  abi: Abi;
  bytecode: Hex;
}

/** Compiles one file under test/support/files with solc-js (offline: the compiler ships in the npm package); every contract in it. */
export function compileFixtures(file: string): Record<string, CompiledFixture> {
  if (!solc.version().startsWith(`${SOLC_VERSION}+`)) throw new Error(`solc ${SOLC_VERSION} is required, found ${solc.version()}`);
  const source = readFileSync(new URL(`./files/${file}`, import.meta.url), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return Object.fromEntries(
    Object.entries(output.contracts?.[file] ?? {}).map(([name, c]) => [
      name,
      { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex },
    ]),
  );
}

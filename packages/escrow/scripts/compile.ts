/**
 * Compiles contracts/*.sol with the pinned solc-js (offline: the compiler ships inside the npm package)
 * and writes the one copy of the outputs, into the contracts package (operator contract: the ABI ships
 * there): packages/contracts/artifacts/<Name>.json (the data) and packages/contracts/src/escrow/artifacts.ts
 * (the same as typed `as const` constants, which let viem infer every function, event and error type).
 *
 *   node scripts/compile.ts           write the outputs
 *   node scripts/compile.ts --check   exit 1 when the committed outputs differ from a fresh compile (the build runs this)
 *
 * The outputs are committed so that typecheck and tests work without compiling first; the build and the
 * artifacts test fail when they are stale. Run by Node directly (type stripping), so: erasable syntax only.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

/** The exact compiler; the bytecode (and its metadata hash) depends on it, so it is pinned in package.json too. */
export const SOLC_VERSION = '0.8.37';
/** Supported by anvil and by Base (mainnet and Sepolia). */
export const EVM_VERSION = 'cancun';
export const OPTIMIZER_RUNS = 200;

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the outputs go: @holdfast/contracts, which every process may import without viem or solc. */
export const outputDir = path.resolve(packageDir, '..', 'contracts');
/** The typed constants, relative to outputDir (the JSON artifacts go to `artifacts/`). */
export const GENERATED_MODULE = 'src/escrow/artifacts.ts';
const requireFromPackage = createRequire(path.join(packageDir, 'package.json'));

type Hex = `0x${string}`;

export interface CompiledContract {
  contractName: string;
  sourceName: string;
  abi: readonly unknown[];
  bytecode: Hex;
  deployedBytecode: Hex;
  /**
   * Where the runtime code holds immutables (byte offset and length, sorted): zero in
   * `deployedBytecode`, written by the constructor. Only these bytes may differ at a deployed address.
   */
  immutableRanges: ImmutableRange[];
}

export interface ImmutableRange {
  start: number;
  length: number;
}

interface SolcError {
  severity: 'error' | 'warning' | 'info';
  formattedMessage: string;
}

interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: {
          bytecode: { object: string };
          deployedBytecode: { object: string; immutableReferences?: Record<string, ImmutableRange[]> };
        };
      }
    >
  >;
}

export interface CompileResult {
  compilerVersion: string;
  contracts: CompiledContract[];
  warnings: string[];
}

/**
 * Resolves imports solc cannot find among the given sources: packages (e.g. `@openzeppelin/contracts/...`)
 * from this package's node_modules, anything else relative to the package directory. The source unit
 * names stay logical (not absolute paths), so the metadata hash is the same on every machine.
 */
function findImport(importPath: string): { contents: string } | { error: string } {
  try {
    const file = importPath.startsWith('@') ? requireFromPackage.resolve(importPath) : path.join(packageDir, importPath);
    return { contents: readFileSync(file, 'utf8') };
  } catch (error) {
    return { error: `cannot resolve ${importPath}: ${(error as Error).message}` };
  }
}

/**
 * Compiles the given sources (source unit name, relative to the package, to content) and returns the
 * contracts they define (not those they import). Throws on any compiler error.
 */
export function compileSources(sources: Record<string, string>): CompileResult {
  const compilerVersion: string = solc.version();
  if (!compilerVersion.startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`solc ${SOLC_VERSION} is required, found ${compilerVersion}`);
  }
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const problems = output.errors ?? [];
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const contracts: CompiledContract[] = [];
  for (const sourceName of Object.keys(sources)) {
    for (const [contractName, compiled] of Object.entries(output.contracts?.[sourceName] ?? {})) {
      contracts.push({
        contractName,
        sourceName,
        abi: compiled.abi,
        bytecode: `0x${compiled.evm.bytecode.object}`,
        deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
        immutableRanges: Object.values(compiled.evm.deployedBytecode.immutableReferences ?? {})
          .flat()
          .map(({ start, length }) => ({ start, length }))
          .sort((a, b) => a.start - b.start),
      });
    }
  }
  contracts.sort((a, b) => a.contractName.localeCompare(b.contractName));
  return { compilerVersion, contracts, warnings: problems.filter((p) => p.severity === 'warning').map((p) => p.formattedMessage) };
}

/** Reads the files of a folder (relative to the package) as solc sources. */
export function readSources(folder: string): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const file of readdirSync(path.join(packageDir, folder)).sort()) {
    if (file.endsWith('.sol')) sources[`${folder}/${file}`] = readFileSync(path.join(packageDir, folder, file), 'utf8');
  }
  return sources;
}

/** `HoldfastEscrow` -> `holdfastEscrow`, `MockUSDC` -> `mockUsdc`. */
export function exportPrefix(contractName: string): string {
  const words = contractName.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [contractName];
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join('');
}

/** Every output file (path relative to outputDir) with its exact content. */
export function renderOutputs(result: CompileResult): Map<string, string> {
  const files = new Map<string, string>();
  const compiler = { version: result.compilerVersion, evmVersion: EVM_VERSION, optimizer: { enabled: true, runs: OPTIMIZER_RUNS } };
  const lines = [
    `// Generated by packages/escrow/scripts/compile.ts from packages/escrow/contracts/*.sol with solc ${result.compilerVersion}`,
    `// (evmVersion ${EVM_VERSION}, optimizer ${OPTIMIZER_RUNS} runs). Do not edit: run \`pnpm --filter @holdfast/escrow compile\`.`,
    '',
    `export const solcVersion = ${JSON.stringify(result.compilerVersion)} as const;`,
  ];
  for (const c of result.contracts) {
    const artifact = {
      contractName: c.contractName,
      sourceName: c.sourceName,
      compiler,
      abi: c.abi,
      bytecode: c.bytecode,
      deployedBytecode: c.deployedBytecode,
      immutableRanges: c.immutableRanges,
    };
    files.set(`artifacts/${c.contractName}.json`, `${JSON.stringify(artifact, null, 2)}\n`);
    const prefix = exportPrefix(c.contractName);
    lines.push(
      '',
      `/** ABI of ${c.contractName} (${c.sourceName}). */`,
      `export const ${prefix}Abi = ${JSON.stringify(c.abi, null, 2)} as const;`,
      '',
      `/** Creation bytecode of ${c.contractName}. */`,
      `export const ${prefix}Bytecode = '${c.bytecode}' as const;`,
      '',
      `/** Runtime bytecode of ${c.contractName}, to compare with the code found at a deployed address. */`,
      `export const ${prefix}DeployedBytecode = '${c.deployedBytecode}' as const;`,
      '',
      `/** Byte ranges of ${c.contractName}'s runtime code that hold immutables (set by its constructor): the only bytes a deployment may change. */`,
      `export const ${prefix}ImmutableRanges = ${JSON.stringify(c.immutableRanges)} as const;`,
    );
  }
  files.set(GENERATED_MODULE, `${lines.join('\n')}\n`);
  return files;
}

/** Compiles contracts/ and renders the outputs a build writes. */
export function buildOutputs(): { result: CompileResult; files: Map<string, string> } {
  const result = compileSources(readSources('contracts'));
  return { result, files: renderOutputs(result) };
}

/** Output paths whose committed content differs from `files` (missing, changed, or left over). */
export function staleOutputs(files: Map<string, string>): string[] {
  const stale: string[] = [];
  for (const [file, content] of files) {
    const full = path.join(outputDir, file);
    if (!existsSync(full) || readFileSync(full, 'utf8') !== content) stale.push(file);
  }
  const artifactsDir = path.join(outputDir, 'artifacts');
  for (const file of existsSync(artifactsDir) ? readdirSync(artifactsDir) : []) {
    if (!files.has(`artifacts/${file}`)) stale.push(`artifacts/${file}`);
  }
  return stale;
}

if (import.meta.main) {
  const { result, files } = buildOutputs();
  for (const warning of result.warnings) process.stderr.write(`${warning}\n`);
  if (process.argv.includes('--check')) {
    const stale = staleOutputs(files);
    if (stale.length > 0) {
      process.stderr.write(`stale compiler outputs (run \`pnpm --filter @holdfast/escrow compile\`): ${stale.join(', ')}\n`);
      process.exit(1);
    }
  } else {
    // A contract that was removed must not leave its artifact behind.
    for (const file of staleOutputs(files).filter((f) => !files.has(f))) rmSync(path.join(outputDir, file));
    for (const [file, content] of files) {
      mkdirSync(path.dirname(path.join(outputDir, file)), { recursive: true });
      writeFileSync(path.join(outputDir, file), content);
    }
    process.stdout.write(`compiled ${result.contracts.map((c) => c.contractName).join(', ')} with solc ${result.compilerVersion}\n`);
  }
}

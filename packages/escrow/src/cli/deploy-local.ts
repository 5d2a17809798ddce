// Deploys MockUSDC and the escrow on a local chain (anvil), for container set-ups such as
// docker-compose.yml where ./scripts/start is not the one starting the chain:
//
//   node dist/cli/deploy-local.js http://anvil:8545 [network]
//
// The local deployer (anvil dev account #9) puts the contracts at the same addresses on every fresh
// chain, so compose can name them in ESCROW_CONTRACTS and TOKEN_CONTRACTS up front; this command
// checks that they are there (deploying them when the chain is fresh) and fails when they are not.
import { createPublicClient, createWalletClient, http } from 'viem';
import { evmChain } from '../chain.js';
import { ensureLocalContracts, escrowContractsEntry, LOCAL_CONTRACTS, localDeployerAccount, tokenContractsEntry } from '../local.js';

const [rpcUrl, network = 'base-sepolia'] = process.argv.slice(2);
if (!rpcUrl) {
  process.stderr.write('usage: deploy-local <rpc-url> [network]\n');
  process.exit(2);
}
const probe = createPublicClient({ transport: http(rpcUrl) });
const chainId = await probe.getChainId();
const chain = evmChain({ id: chainId, name: network, rpcUrl });
const publicClient = createPublicClient({ chain, transport: http(rpcUrl), cacheTime: 0 });
const walletClient = createWalletClient({ chain, transport: http(rpcUrl), account: localDeployerAccount() });
const { contracts, deployed } = await ensureLocalContracts({ publicClient, walletClient, recorded: { ...LOCAL_CONTRACTS, chainId } });
const expected =
  LOCAL_CONTRACTS.escrow.address === contracts.escrow.address && LOCAL_CONTRACTS.mockUsdc.address === contracts.mockUsdc.address;
process.stdout.write(`${deployed ? 'deployed' : 'found'} on chain ${chainId}\n`);
process.stdout.write(`ESCROW_CONTRACTS=${escrowContractsEntry(network, contracts.escrow)}\n`);
process.stdout.write(`TOKEN_CONTRACTS=${tokenContractsEntry(network, 'MockUSDC', contracts.mockUsdc)}\n`);
if (!expected) {
  process.stderr.write(
    'the contracts are not at the deterministic local addresses: was the chain used before? Start from a fresh chain.\n',
  );
  process.exit(1);
}

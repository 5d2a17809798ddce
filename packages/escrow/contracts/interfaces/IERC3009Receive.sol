// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice EIP-3009's `receiveWithAuthorization` in the `bytes signature` form of USDC (FiatToken v2.2),
///         which takes an ECDSA signature or, from a contract wallet, whatever its ERC-1271 accepts.
interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

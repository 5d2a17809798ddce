// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title MockUSDC
/// @notice A USDC stand-in for local chains and test networks ONLY: anyone may mint any amount.
///         Never deploy it where it could be mistaken for a real stablecoin.
/// @dev Six decimals like USDC, so amounts in tests and demos read the same as in production.
contract MockUSDC is ERC20 {
    constructor() ERC20("Mock USD Coin", "MockUSDC") {}

    /// @notice 6, as USDC.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` (in 6-decimal units) to `to`. Unrestricted on purpose: test networks only.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}

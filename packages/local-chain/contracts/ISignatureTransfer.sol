// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Minimal interface of Uniswap Permit2's SignatureTransfer, as used by the x402 proxies.
/// @dev Only the structs and the one function our proxies call. Permit2 itself is predeployed by
///      `anvil --network tempo` at 0x000000000022D473030F116dDEE9F6B43aC78BA3.
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

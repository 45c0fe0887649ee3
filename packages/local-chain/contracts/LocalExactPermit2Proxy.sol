// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ISignatureTransfer} from "./ISignatureTransfer.sol";

/// @title LocalExactPermit2Proxy — LOCAL CHAINS ONLY.
/// @notice Same external ABI as x402's `x402ExactPermit2Proxy`, installed with `anvil_setCode` at the
///         canonical address 0x402085c248EeA27D92E8b30b2C58ed07f9E20001. Moves exactly the permitted
///         amount from `owner` to `witness.to` through Permit2, with the witness the x402 client signs:
///         `Witness(address to,uint256 validAfter)`.
/// @dev Constants only (no constructor state, no immutables): the runtime code is copied into place.
contract LocalExactPermit2Proxy is ReentrancyGuardTransient {
    /// @notice Canonical Permit2.
    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// @notice Witness type string appended to Permit2's PermitWitnessTransferFrom stub.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";

    /// @notice EIP-712 type hash of the witness struct.
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    struct Witness {
        address to;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();

    error InvalidAmount();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();

    /// @notice Settles a Permit2 witness transfer for the full permitted amount.
    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, owner, witness, signature);
        emit Settled();
    }

    /// @notice Applies an EIP-2612 permit (token → Permit2 allowance) first, then settles.
    /// @dev The permit call may fail harmlessly if the allowance was already granted (front-run).
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value < permit.permitted.amount) revert Permit2612AmountMismatch();
        try IERC20Permit(permit.permitted.token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
        _settle(permit, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (permit.permitted.amount == 0) revert InvalidAmount();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: permit.permitted.amount}),
            owner,
            keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter)),
            WITNESS_TYPE_STRING,
            signature
        );
    }
}

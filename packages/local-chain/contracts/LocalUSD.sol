// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";

/// @title LocalUSD — a 6-decimal test dollar for LOCAL CHAINS ONLY.
/// @notice ERC-20 with EIP-2612 `permit` and EIP-3009 transfer/receive/cancel with authorization,
///         shaped like Circle's USDC so the unmodified x402 `exact` (EIP-3009) and `upto`
///         (Permit2) schemes work against it. Anyone can read it; only the owner can mint.
/// @dev The EIP-712 domain is (name, version, chainId, this). OpenZeppelin's ERC20Permit hardcodes
///      version "1", so EIP-2612 is implemented here over OZ's EIP712 + Nonces with the same
///      semantics and a configurable version. Signatures are checked with SignatureChecker
///      (ECDSA for EOAs, ERC-1271 for contract wallets). Revert strings follow Circle's wording
///      ("authorization is expired", ...) so x402's facilitator can classify failures.
contract LocalUSD is ERC20, IERC20Permit, EIP712, Nonces, Ownable {
    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    /// @notice Emitted when an EIP-3009 authorization is consumed.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    /// @notice Emitted when an EIP-3009 authorization is cancelled before use.
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    string private _version;
    mapping(address authorizer => mapping(bytes32 nonce => bool used)) private _authorizationStates;

    constructor(string memory name_, string memory symbol_, string memory version_, address initialOwner)
        ERC20(name_, symbol_)
        EIP712(name_, version_)
        Ownable(initialOwner)
    {
        _version = version_;
    }

    /// @notice 6 decimals, like USDC.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice The EIP-712 domain version (x402 reads it to check `extra.version`).
    function version() external view returns (string memory) {
        return _version;
    }

    /// @notice Mints `amount` atomic units to `to`. Owner only.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    // ---------------------------------------------------------------- EIP-2612

    /// @inheritdoc IERC20Permit
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @inheritdoc IERC20Permit
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    /// @inheritdoc IERC20Permit
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        require(block.timestamp <= deadline, "LocalUSD: permit is expired");
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        require(
            SignatureChecker.isValidSignatureNow(owner, _hashTypedDataV4(structHash), abi.encodePacked(r, s, v)),
            "LocalUSD: invalid signature"
        );
        _approve(owner, spender, value);
    }

    // ---------------------------------------------------------------- EIP-3009

    /// @notice Whether `nonce` of `authorizer` has been used or cancelled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice Executes a signed transfer (v, r, s form).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    /// @notice Executes a signed transfer (bytes form: ECDSA or ERC-1271).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Like transferWithAuthorization, but only the payee may submit it (v, r, s form).
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "LocalUSD: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    /// @notice Like transferWithAuthorization, but only the payee may submit it (bytes form).
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        require(to == msg.sender, "LocalUSD: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Cancels an unused authorization (v, r, s form).
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice Cancels an unused authorization (bytes form).
    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external {
        _cancelAuthorization(authorizer, nonce, signature);
    }

    function _transferWithAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        require(block.timestamp > validAfter, "LocalUSD: authorization is not yet valid");
        require(block.timestamp < validBefore, "LocalUSD: authorization is expired");
        require(!_authorizationStates[from][nonce], "LocalUSD: authorization is used or canceled");
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        require(
            SignatureChecker.isValidSignatureNow(from, _hashTypedDataV4(structHash), signature),
            "LocalUSD: invalid signature"
        );
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) private {
        require(!_authorizationStates[authorizer][nonce], "LocalUSD: authorization is used or canceled");
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        require(
            SignatureChecker.isValidSignatureNow(authorizer, _hashTypedDataV4(structHash), signature),
            "LocalUSD: invalid signature"
        );
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }
}

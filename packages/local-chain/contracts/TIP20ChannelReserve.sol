// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title TIP20ChannelReserve (local stand-in)
/// @notice EVM implementation of the TIP-1034 TIP-20 channel reserve interface that mppx
///         (tempo/session, sessionProtocol v2) talks to at 0x4d50500000000000000000000000000000000000.
///         Installed with `anvil_setCode` on `anvil --network tempo` (which lacks the native precompile).
///
/// Differences from the native precompile (see src/tempo/rpc-shim.ts):
///  - The transaction-derived `expiringNonceHash` (keccak256(encodeForSigning(tx) || sender)) cannot be
///    computed from inside the EVM. The native node seeds it into the precompile before every transaction;
///    here the loopback RPC shim (src/tempo/rpc-shim.ts) seeds it into `_openContext[sender]` (storage) right
///    before forwarding the raw transaction, and clears it afterwards.
///  - TIP-20 implicit approval (the reserve may pull from msg.sender without approve) is emulated by the same
///    shim, which writes the sender's allowance for this address before the tx and restores it afterwards.
///    The contract itself only ever pulls from msg.sender.
contract TIP20ChannelReserve {
    struct ChannelDescriptor {
        address payer;
        address payee;
        address operator;
        address token;
        bytes32 salt;
        address authorizedSigner;
        bytes32 expiringNonceHash;
    }

    struct ChannelState {
        uint96 settled;
        uint96 deposit;
        uint32 closeRequestedAt;
    }

    struct Channel {
        ChannelDescriptor descriptor;
        ChannelState state;
    }

    address internal constant RESERVE = 0x4d50500000000000000000000000000000000000;
    address internal constant SIGNATURE_VERIFIER = 0x5165300000000000000000000000000000000000;

    uint64 public constant CLOSE_GRACE_PERIOD = 900;
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint96 cumulativeAmount)");

    bytes32 internal constant _DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant _NAME_HASH = keccak256("TIP20 Channel Reserve");
    bytes32 internal constant _VERSION_HASH = keccak256("1");

    // slot 0: channelId => packed state
    mapping(bytes32 => ChannelState) internal _states;
    // slot 1: channelId => ever opened (prevents re-opening a finalized id)
    mapping(bytes32 => bool) internal _used;
    // slot 2: sender => transaction-derived open context hash, seeded by the RPC shim
    mapping(address => bytes32) internal _openContext;

    event ChannelOpened(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        address operator,
        address token,
        address authorizedSigner,
        bytes32 salt,
        bytes32 expiringNonceHash,
        uint96 deposit
    );
    event Settled(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        uint96 cumulativeAmount,
        uint96 deltaPaid,
        uint96 newSettled
    );
    event TopUp(
        bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 additionalDeposit, uint96 newDeposit
    );
    event CloseRequested(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 closeGraceEnd);
    event ChannelClosed(
        bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 settledToPayee, uint96 refundedToPayer
    );
    event CloseRequestCancelled(bytes32 indexed channelId, address indexed payer, address indexed payee);

    error ChannelAlreadyExists();
    error ChannelNotFound();
    error NotPayer();
    error NotPayeeOrOperator();
    error InvalidPayee();
    error ZeroDeposit();
    error ExpiringNonceHashNotSet();
    error InvalidSignature();
    error AmountExceedsDeposit();
    error AmountNotIncreasing();
    error CaptureAmountInvalid();
    error CloseNotReady();
    error DepositOverflow();
    error TransferFailed();

    // ------------------------------------------------------------------ open / topUp

    function open(address payee, address operator, address token, uint96 deposit, bytes32 salt, address authorizedSigner)
        external
        returns (bytes32 channelId)
    {
        if (payee == address(0)) revert InvalidPayee();
        if (deposit == 0) revert ZeroDeposit();
        bytes32 enh = _openContext[msg.sender];
        if (enh == bytes32(0)) revert ExpiringNonceHashNotSet();

        channelId = computeChannelId(msg.sender, payee, operator, token, salt, authorizedSigner, enh);
        if (_used[channelId]) revert ChannelAlreadyExists();
        _used[channelId] = true;
        _states[channelId] = ChannelState({settled: 0, deposit: deposit, closeRequestedAt: 0});

        _pull(token, msg.sender, deposit);

        emit ChannelOpened(channelId, msg.sender, payee, operator, token, authorizedSigner, salt, enh, deposit);
    }

    function topUp(ChannelDescriptor calldata d, uint96 additionalDeposit) external {
        bytes32 id = _id(d);
        ChannelState storage s = _existing(id);
        if (msg.sender != d.payer) revert NotPayer();
        if (additionalDeposit == 0) revert ZeroDeposit();
        uint256 next = uint256(s.deposit) + additionalDeposit;
        if (next > type(uint96).max) revert DepositOverflow();
        s.deposit = uint96(next);

        _pull(d.token, msg.sender, additionalDeposit);

        if (s.closeRequestedAt != 0) {
            s.closeRequestedAt = 0;
            emit CloseRequestCancelled(id, d.payer, d.payee);
        }
        emit TopUp(id, d.payer, d.payee, additionalDeposit, uint96(next));
    }

    // ------------------------------------------------------------------ settle / close

    function settle(ChannelDescriptor calldata d, uint96 cumulativeAmount, bytes calldata signature) external {
        bytes32 id = _id(d);
        ChannelState storage s = _existing(id);
        _onlyPayeeOrOperator(d);
        if (cumulativeAmount > s.deposit) revert AmountExceedsDeposit();
        if (cumulativeAmount <= s.settled) revert AmountNotIncreasing();
        _verifyVoucher(d, id, cumulativeAmount, signature);

        uint96 delta = cumulativeAmount - s.settled;
        s.settled = cumulativeAmount;
        _push(d.token, d.payee, delta);
        emit Settled(id, d.payer, d.payee, cumulativeAmount, delta, cumulativeAmount);
    }

    function close(ChannelDescriptor calldata d, uint96 cumulativeAmount, uint96 captureAmount, bytes calldata signature)
        external
    {
        bytes32 id = _id(d);
        ChannelState memory s = _existing(id);
        _onlyPayeeOrOperator(d);
        if (captureAmount < s.settled || captureAmount > cumulativeAmount) revert CaptureAmountInvalid();
        if (captureAmount > s.deposit) revert AmountExceedsDeposit();
        if (captureAmount > s.settled) _verifyVoucher(d, id, cumulativeAmount, signature);

        uint96 delta = captureAmount - s.settled;
        uint96 refund = s.deposit - captureAmount;
        delete _states[id];

        if (delta > 0) _push(d.token, d.payee, delta);
        if (refund > 0) _push(d.token, d.payer, refund);
        emit ChannelClosed(id, d.payer, d.payee, captureAmount, refund);
    }

    function requestClose(ChannelDescriptor calldata d) external {
        bytes32 id = _id(d);
        ChannelState storage s = _existing(id);
        if (msg.sender != d.payer) revert NotPayer();
        if (s.closeRequestedAt == 0) {
            s.closeRequestedAt = uint32(block.timestamp);
            emit CloseRequested(id, d.payer, d.payee, block.timestamp + CLOSE_GRACE_PERIOD);
        }
    }

    function withdraw(ChannelDescriptor calldata d) external {
        bytes32 id = _id(d);
        ChannelState memory s = _existing(id);
        if (msg.sender != d.payer) revert NotPayer();
        if (s.closeRequestedAt == 0 || block.timestamp < uint256(s.closeRequestedAt) + CLOSE_GRACE_PERIOD) {
            revert CloseNotReady();
        }
        uint96 refund = s.deposit - s.settled;
        delete _states[id];
        if (refund > 0) _push(d.token, d.payer, refund);
        emit ChannelClosed(id, d.payer, d.payee, s.settled, refund);
    }

    // ------------------------------------------------------------------ views

    function getChannel(ChannelDescriptor calldata d) external view returns (Channel memory) {
        return Channel({descriptor: d, state: _states[_id(d)]});
    }

    function getChannelState(bytes32 channelId) external view returns (ChannelState memory) {
        return _states[channelId];
    }

    function getChannelStatesBatch(bytes32[] calldata channelIds) external view returns (ChannelState[] memory out) {
        out = new ChannelState[](channelIds.length);
        for (uint256 i = 0; i < channelIds.length; ++i) {
            out[i] = _states[channelIds[i]];
        }
    }

    function computeChannelId(
        address payer,
        address payee,
        address operator,
        address token,
        bytes32 salt,
        address authorizedSigner,
        bytes32 expiringNonceHash
    ) public view returns (bytes32) {
        return keccak256(
            abi.encode(payer, payee, operator, token, salt, authorizedSigner, expiringNonceHash, RESERVE, block.chainid)
        );
    }

    function getVoucherDigest(bytes32 channelId, uint96 cumulativeAmount) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, cumulativeAmount));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(_DOMAIN_TYPEHASH, _NAME_HASH, _VERSION_HASH, block.chainid, RESERVE));
    }

    // ------------------------------------------------------------------ internals

    function _id(ChannelDescriptor calldata d) internal view returns (bytes32) {
        return computeChannelId(d.payer, d.payee, d.operator, d.token, d.salt, d.authorizedSigner, d.expiringNonceHash);
    }

    function _existing(bytes32 id) internal view returns (ChannelState storage s) {
        s = _states[id];
        if (s.deposit == 0) revert ChannelNotFound();
    }

    function _onlyPayeeOrOperator(ChannelDescriptor calldata d) internal view {
        if (msg.sender != d.payee && (d.operator == address(0) || msg.sender != d.operator)) {
            revert NotPayeeOrOperator();
        }
    }

    /// Voucher signatures are TIP-1020 primitive envelopes (secp256k1 / p256 / webAuthn); verification is
    /// delegated to anvil's native TIP-1020 SignatureVerifier precompile, like the native reserve does.
    function _verifyVoucher(ChannelDescriptor calldata d, bytes32 id, uint96 cumulativeAmount, bytes calldata signature)
        internal
        view
    {
        address signer = d.authorizedSigner == address(0) ? d.payer : d.authorizedSigner;
        bytes32 digest = getVoucherDigest(id, cumulativeAmount);
        (bool ok, bytes memory ret) = SIGNATURE_VERIFIER.staticcall(
            abi.encodeWithSignature("verify(address,bytes32,bytes)", signer, digest, signature)
        );
        if (!ok || ret.length < 32 || !abi.decode(ret, (bool))) revert InvalidSignature();
    }

    function _pull(address token, address from, uint96 amount) internal {
        (bool ok, bytes memory ret) =
            token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", from, address(this), amount));
        if (!ok) _bubble(ret);
        if (ret.length >= 32 && !abi.decode(ret, (bool))) revert TransferFailed();
    }

    function _push(address token, address to, uint96 amount) internal {
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSignature("transfer(address,uint256)", to, amount));
        if (!ok) _bubble(ret);
        if (ret.length >= 32 && !abi.decode(ret, (bool))) revert TransferFailed();
    }

    function _bubble(bytes memory ret) internal pure {
        if (ret.length == 0) revert TransferFailed();
        assembly {
            revert(add(ret, 32), mload(ret))
        }
    }
}

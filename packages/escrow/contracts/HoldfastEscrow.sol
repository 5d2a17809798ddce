// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC3009Receive} from "./interfaces/IERC3009Receive.sol";

/// @title HoldfastEscrow
/// @notice Holds ERC-20 payments between a sender and a receiver, one record per on-chain id, until
///         they are released to the receiver, rescinded by the sender during the hold, or split by
///         the platform's attester as a dispute outcome.
///
///         An id is a bytes32 holding a Holdfast transaction's (or batch leg's) UUID: its 16 bytes,
///         left-padded with zeros. Ids are never reused, even after settlement.
///
///         Who may do what with one escrow (status Held; every path ends it for good):
///         - sender:   `release` at any time (it is the sender's money to hand over);
///                     `rescind` while block.timestamp < holdDeadline;
///                     `attestEarlyRelease`.
///         - receiver: `attestEarlyRelease`. Once sender and receiver have both attested, the funds
///                     go to the receiver, before or after the hold deadline: both parties agree, so
///                     the hold (which protects only the sender) may be waived.
///         - attester: `release` once block.timestamp >= holdDeadline; `refund` with any split once
///                     the hold has ended, or a full refund (10000 bps) at any time (e.g. a compliance
///                     rejection: the sender could rescind anyway); `freeze` (dispute) before expiry.
///                     Before the hold deadline the receiver is therefore paid only with the sender's
///                     consent.
///         - anyone:   `claimExpired` once block.timestamp >= expiresAt, paying the receiver.
///
///         Escape rule (no funds stuck by a lost attester key or a silent sender): every escrow has
///         `expiresAt = max(holdDeadline, creation time) + expiryPeriod`. From then on anyone may push
///         the funds to the receiver: after the hold the payment is due to the receiver, and the
///         attester exists only to intervene. An attester that opens a dispute calls `freeze`, which
///         moves `expiresAt` to at least `now + freezePeriod`; it may call it again while it is alive
///         and resolves the dispute with `release` or `refund`. If its key is lost, the last freeze
///         lapses and the escape opens again. A hold deadline is capped at MAX_HOLD_PERIOD from
///         creation so no escrow can be parked out of reach.
///
///         There is no owner, no upgrade path and no admin function: nobody but the parties above can
///         move escrowed funds. The platform rotates its attester key by naming a new attester in new
///         escrows; existing ones keep theirs (and the escape covers a lost one).
///
///         Tokens: plain ERC-20s only. A token that delivers anything other than the requested amount
///         (fee-on-transfer) is refused at creation, so the recorded amount is always what the contract
///         holds and what the off-chain transaction says. Rebasing tokens are not supported. A token
///         that blocks the receiver (a blocklist) can hold up payments to that receiver; the attester
///         can still refund to the sender.
/// @dev Checks-effects-interactions and `nonReentrant` on every state-changing function; SafeERC20
///      for every transfer. Amounts are stored as uint96 (7.9e28 units) so a record fits four slots.
contract HoldfastEscrow is ReentrancyGuard, IERC5267 {
    using SafeERC20 for IERC20;

    /// @notice Life of one id: None -> Held -> Released | Rescinded | Refunded (terminal).
    enum Status {
        None,
        Held,
        Released,
        Rescinded,
        Refunded
    }

    /// @notice Which path paid the receiver in an `EscrowReleased` event.
    enum ReleaseReason {
        Release,
        EarlyRelease,
        Expiry
    }

    struct Escrow {
        address sender;
        uint64 holdDeadline;
        Status status;
        bool senderAttested;
        bool receiverAttested;
        address receiver;
        uint64 expiresAt;
        address token;
        address attester;
        uint96 amount;
    }

    /// @notice An EIP-2612 permit as `createEscrowWithPermit` takes it (value = amount, spender = this escrow).
    struct Permit {
        uint256 deadline;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice The message a payer signs for `createEscrowWithPermit`, in this escrow's EIP-712 domain
    ///         (name EIP712_NAME, version EIP712_VERSION, this chain, this address).
    bytes32 public constant ESCROW_AUTHORIZATION_TYPEHASH = keccak256(
        "EscrowAuthorization(bytes32 id,address sender,address receiver,address token,uint256 amount,address attester,uint64 holdDeadline,uint256 deadline)"
    );
    string public constant EIP712_NAME = "HoldfastEscrow";
    string public constant EIP712_VERSION = "1";
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    /// @notice Basis points of a whole refund.
    uint256 public constant MAX_BPS = 10_000;
    /// @notice Longest hold a creator may set, counted from creation.
    uint256 public constant MAX_HOLD_PERIOD = 365 days;
    /// @notice Bounds of the constructor's periods.
    uint256 public constant MIN_PERIOD = 1 days;
    uint256 public constant MAX_PERIOD = 730 days;

    /// @notice Time after the hold deadline (or creation, when later) from which anyone may release.
    uint64 public immutable expiryPeriod;
    /// @notice Minimum time a `freeze` keeps the expiry escape closed.
    uint64 public immutable freezePeriod;

    mapping(bytes32 id => Escrow) private _escrows;

    event EscrowCreated(
        bytes32 indexed id,
        address indexed sender,
        address indexed receiver,
        address token,
        uint256 amount,
        address attester,
        uint64 holdDeadline,
        uint64 expiresAt
    );
    /// @notice One per `createBatch`, after its legs' `EscrowCreated` events.
    event BatchCreated(bytes32 indexed firstId, address indexed sender, address indexed token, uint256 legCount, uint256 total);
    event EarlyReleaseAttested(bytes32 indexed id, address indexed party);
    event EscrowReleased(bytes32 indexed id, address indexed receiver, address indexed by, uint256 amount, ReleaseReason reason);
    event EscrowRescinded(bytes32 indexed id, address indexed sender, uint256 amount);
    event EscrowRefunded(
        bytes32 indexed id,
        address indexed sender,
        address indexed receiver,
        uint256 refundedToSender,
        uint256 paidToReceiver,
        uint256 refundBps
    );
    event EscrowFrozen(bytes32 indexed id, address indexed attester, uint64 expiresAt);

    error InvalidPeriod(uint256 period);
    error InvalidId(bytes32 id);
    error InvalidAddress(address account);
    error ZeroAmount();
    error AmountTooLarge(uint256 amount);
    error HoldTooLong(uint64 holdDeadline, uint256 latestAllowed);
    error EscrowExists(bytes32 id);
    error EmptyBatch();
    error LengthMismatch();
    error TransferAmountMismatch(uint256 expected, uint256 received);
    error UnknownEscrow(bytes32 id);
    error AlreadySettled(bytes32 id, Status status);
    error NotAuthorized(address caller);
    error HoldDeadlinePassed(bytes32 id, uint64 holdDeadline);
    error HoldNotEnded(bytes32 id, uint64 holdDeadline);
    error InvalidBps(uint256 bps);
    error AlreadyAttested(bytes32 id, address party);
    error NotExpired(bytes32 id, uint64 expiresAt);
    error EscrowExpired(bytes32 id, uint64 expiresAt);
    error AuthorizationExpired(uint256 deadline);
    error InvalidSignature(address signer);
    error PermitFailed(address token, address owner);

    /// @param expiryPeriod_ See `expiryPeriod`; between MIN_PERIOD and MAX_PERIOD.
    /// @param freezePeriod_ See `freezePeriod`; between MIN_PERIOD and MAX_PERIOD.
    constructor(uint64 expiryPeriod_, uint64 freezePeriod_) {
        if (expiryPeriod_ < MIN_PERIOD || expiryPeriod_ > MAX_PERIOD) revert InvalidPeriod(expiryPeriod_);
        if (freezePeriod_ < MIN_PERIOD || freezePeriod_ > MAX_PERIOD) revert InvalidPeriod(freezePeriod_);
        expiryPeriod = expiryPeriod_;
        freezePeriod = freezePeriod_;
    }

    /// @notice Locks `amount` of `token` from msg.sender (the sender; approve first) for `receiver`.
    /// @param id The transaction's UUID left-padded to 32 bytes; never used before.
    /// @param attester The platform's attester for this escrow (the indexer checks it is the platform's).
    /// @param holdDeadline Unix time until which the sender may rescind; a past value means no hold.
    function createEscrow(bytes32 id, address receiver, address token, uint256 amount, address attester, uint64 holdDeadline)
        external
        nonReentrant
    {
        uint64 expiresAt = _checkTerms(token, attester, holdDeadline);
        _record(id, msg.sender, receiver, token, amount, attester, holdDeadline, expiresAt);
        _pull(token, msg.sender, amount);
    }

    /// @notice Locks one escrow per leg (same sender, token, attester and hold deadline) with a single
    ///         transferFrom of the total. Each leg is then an independent escrow under its own id.
    function createBatch(
        bytes32[] calldata ids,
        address[] calldata receivers,
        uint256[] calldata amounts,
        address token,
        address attester,
        uint64 holdDeadline
    ) external nonReentrant {
        uint256 legCount = ids.length;
        if (legCount == 0) revert EmptyBatch();
        if (receivers.length != legCount || amounts.length != legCount) revert LengthMismatch();
        uint64 expiresAt = _checkTerms(token, attester, holdDeadline);
        uint256 total;
        for (uint256 i; i < legCount; ++i) {
            _record(ids[i], msg.sender, receivers[i], token, amounts[i], attester, holdDeadline, expiresAt);
            total += amounts[i];
        }
        emit BatchCreated(ids[0], msg.sender, token, legCount, total);
        _pull(token, msg.sender, total);
    }

    /// @notice Creates an escrow funded by `sender`'s EIP-3009 `ReceiveWithAuthorization` (USDC), so the
    ///         payer signs once and needs no ETH: anyone (a relayer) submits it and pays the gas.
    ///         The payer signs, in the token's EIP-712 domain: from = sender, to = this escrow,
    ///         value = amount, validAfter, validBefore, and nonce = `authorizationNonce(...)` of these
    ///         terms. The nonce binds every term (and this chain and escrow), so the signature funds
    ///         these terms or nothing: a relayer that changes any of them gets the token's
    ///         "invalid signature". Only this escrow can submit it (`receiveWithAuthorization` requires
    ///         msg.sender == to), so it cannot be front-run into a plain transfer; it is used once (the
    ///         token marks the nonce used, and the id can never be created again).
    /// @param sender The payer, recorded as the escrow's sender (it may rescind, release, attest).
    /// @param signature The payer's signature: 65-byte ECDSA, or what its ERC-1271 wallet accepts.
    function createEscrowWithAuthorization(
        bytes32 id,
        address sender,
        address receiver,
        address token,
        uint256 amount,
        address attester,
        uint64 holdDeadline,
        uint256 validAfter,
        uint256 validBefore,
        bytes calldata signature
    ) external nonReentrant {
        if (sender == address(0)) revert InvalidAddress(sender);
        uint64 expiresAt = _checkTerms(token, attester, holdDeadline);
        _record(id, sender, receiver, token, amount, attester, holdDeadline, expiresAt);
        bytes32 nonce = authorizationNonce(id, sender, receiver, token, amount, attester, holdDeadline);
        uint256 before = IERC20(token).balanceOf(address(this));
        IERC3009Receive(token).receiveWithAuthorization(sender, address(this), amount, validAfter, validBefore, nonce, signature);
        _checkReceived(token, before, amount);
    }

    /// @notice The EIP-3009 nonce that funds exactly these terms in this escrow on this chain:
    ///         keccak256(abi.encode(block.chainid, address(this), id, sender, receiver, token, amount,
    ///         attester, holdDeadline)).
    function authorizationNonce(
        bytes32 id,
        address sender,
        address receiver,
        address token,
        uint256 amount,
        address attester,
        uint64 holdDeadline
    ) public view returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(this), id, sender, receiver, token, amount, attester, holdDeadline));
    }

    /// @notice Creates an escrow funded through an EIP-2612 permit, for tokens without EIP-3009; the payer
    ///         needs no ETH. A permit names only spender, value and deadline, not the escrow terms, so the
    ///         payer also signs an `EscrowAuthorization` of every term (and the permit's deadline) in this
    ///         escrow's EIP-712 domain, checked with SignatureChecker (ECDSA, or ERC-1271 for a contract
    ///         wallet). Then the permit is tried: if it fails (e.g. someone front-ran it to the token, which
    ///         spends it but grants the same allowance), the allowance must cover the amount. The
    ///         authorization is used once: it names the id, and an id can never be created again.
    /// @param permit The token permit for value = amount, spender = this escrow; its deadline also bounds
    ///        the EscrowAuthorization (refused once block.timestamp > deadline).
    /// @param signature The payer's EscrowAuthorization signature.
    function createEscrowWithPermit(
        bytes32 id,
        address sender,
        address receiver,
        address token,
        uint256 amount,
        address attester,
        uint64 holdDeadline,
        Permit calldata permit,
        bytes calldata signature
    ) external nonReentrant {
        if (block.timestamp > permit.deadline) revert AuthorizationExpired(permit.deadline);
        if (sender == address(0)) revert InvalidAddress(sender);
        bytes32 digest = _escrowAuthorizationDigest(id, sender, receiver, token, amount, attester, holdDeadline, permit.deadline);
        if (!SignatureChecker.isValidSignatureNow(sender, digest, signature)) revert InvalidSignature(sender);
        uint64 expiresAt = _checkTerms(token, attester, holdDeadline);
        _record(id, sender, receiver, token, amount, attester, holdDeadline, expiresAt);
        _permit(token, sender, amount, permit);
        _pull(token, sender, amount);
    }

    /// @notice This escrow's EIP-712 domain (EIP-5267): name, version, chain id and address.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", EIP712_NAME, EIP712_VERSION, block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @notice Pays the whole amount to the receiver. The sender may call it at any time; the attester
    ///         only once the hold deadline has passed, so it cannot cut the sender's rescind window short.
    function release(bytes32 id) external nonReentrant {
        Escrow storage e = _held(id);
        if (msg.sender != e.sender) {
            if (msg.sender != e.attester) revert NotAuthorized(msg.sender);
            if (block.timestamp < e.holdDeadline) revert HoldNotEnded(id, e.holdDeadline);
        }
        _payReceiver(id, e, ReleaseReason.Release);
    }

    /// @notice Records the caller's (sender's or receiver's) consent to release now; the call that
    ///         completes both consents pays the receiver, whether or not the hold has ended.
    function attestEarlyRelease(bytes32 id) external nonReentrant {
        Escrow storage e = _held(id);
        bool isSender = msg.sender == e.sender;
        bool isReceiver = msg.sender == e.receiver;
        if (!isSender && !isReceiver) revert NotAuthorized(msg.sender);
        bool recorded;
        if (isSender && !e.senderAttested) {
            e.senderAttested = true;
            recorded = true;
        }
        if (isReceiver && !e.receiverAttested) {
            e.receiverAttested = true;
            recorded = true;
        }
        if (!recorded) revert AlreadyAttested(id, msg.sender);
        emit EarlyReleaseAttested(id, msg.sender);
        if (e.senderAttested && e.receiverAttested) _payReceiver(id, e, ReleaseReason.EarlyRelease);
    }

    /// @notice The sender takes the funds back while block.timestamp < holdDeadline.
    function rescind(bytes32 id) external nonReentrant {
        Escrow storage e = _held(id);
        if (msg.sender != e.sender) revert NotAuthorized(msg.sender);
        if (block.timestamp >= e.holdDeadline) revert HoldDeadlinePassed(id, e.holdDeadline);
        e.status = Status.Rescinded;
        uint256 amount = e.amount;
        emit EscrowRescinded(id, e.sender, amount);
        IERC20(e.token).safeTransfer(e.sender, amount);
    }

    /// @notice Dispute outcome by the attester: `refundBps` of the amount (rounded down) back to the
    ///         sender, the rest to the receiver, so nothing is left behind. 10000 is a full refund and
    ///         is allowed at any time; any split that pays the receiver waits for the hold deadline.
    function refund(bytes32 id, uint256 refundBps) external nonReentrant {
        Escrow storage e = _held(id);
        if (msg.sender != e.attester) revert NotAuthorized(msg.sender);
        if (refundBps > MAX_BPS) revert InvalidBps(refundBps);
        if (refundBps < MAX_BPS && block.timestamp < e.holdDeadline) revert HoldNotEnded(id, e.holdDeadline);
        e.status = Status.Refunded;
        uint256 amount = e.amount;
        uint256 toSender = (amount * refundBps) / MAX_BPS;
        uint256 toReceiver = amount - toSender;
        emit EscrowRefunded(id, e.sender, e.receiver, toSender, toReceiver, refundBps);
        IERC20 token = IERC20(e.token);
        if (toSender > 0) token.safeTransfer(e.sender, toSender);
        if (toReceiver > 0) token.safeTransfer(e.receiver, toReceiver);
    }

    /// @notice Dispute freeze by the attester: keeps the expiry escape closed until at least
    ///         now + freezePeriod. Refused once the escrow has expired (the receiver's claim is then due).
    function freeze(bytes32 id) external nonReentrant {
        Escrow storage e = _held(id);
        if (msg.sender != e.attester) revert NotAuthorized(msg.sender);
        if (block.timestamp >= e.expiresAt) revert EscrowExpired(id, e.expiresAt);
        uint64 until = uint64(block.timestamp) + freezePeriod;
        if (until > e.expiresAt) e.expiresAt = until;
        emit EscrowFrozen(id, msg.sender, e.expiresAt);
    }

    /// @notice The escape: anyone may pay the receiver once block.timestamp >= expiresAt.
    function claimExpired(bytes32 id) external nonReentrant {
        Escrow storage e = _held(id);
        if (block.timestamp < e.expiresAt) revert NotExpired(id, e.expiresAt);
        _payReceiver(id, e, ReleaseReason.Expiry);
    }

    /// @notice The record of `id` (all zero, status None, if it was never created).
    function getEscrow(bytes32 id) external view returns (Escrow memory) {
        return _escrows[id];
    }

    /// @dev Validates what a single escrow and a batch share; returns the escrows' expiry.
    function _checkTerms(address token, address attester, uint64 holdDeadline) private view returns (uint64) {
        // An address without code would make every later call fail without a reason.
        if (token.code.length == 0) revert InvalidAddress(token);
        if (attester == address(0)) revert InvalidAddress(attester);
        uint256 latestAllowed = block.timestamp + MAX_HOLD_PERIOD;
        if (holdDeadline > latestAllowed) revert HoldTooLong(holdDeadline, latestAllowed);
        // A deadline in the past must not make the escrow claimable at once.
        uint256 holdEnd = holdDeadline > block.timestamp ? holdDeadline : block.timestamp;
        return uint64(holdEnd + expiryPeriod);
    }

    /// @dev The EIP-712 digest of an EscrowAuthorization. The domain separator is computed on each use
    ///      rather than cached in immutables, so the only immutables stay the two periods.
    function _escrowAuthorizationDigest(
        bytes32 id,
        address sender,
        address receiver,
        address token,
        uint256 amount,
        address attester,
        uint64 holdDeadline,
        uint256 deadline
    ) private view returns (bytes32) {
        bytes32 domainSeparator = keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(EIP712_NAME)), keccak256(bytes(EIP712_VERSION)), block.chainid, address(this))
        );
        bytes32 structHash = keccak256(
            abi.encode(ESCROW_AUTHORIZATION_TYPEHASH, id, sender, receiver, token, amount, attester, holdDeadline, deadline)
        );
        return MessageHashUtils.toTypedDataHash(domainSeparator, structHash);
    }

    /// @dev Submits `owner`'s permit for `amount`; when it fails (already used, e.g. front-run, or not
    ///      supported), the allowance it would have given must already be there.
    function _permit(address token, address owner, uint256 amount, Permit calldata permit) private {
        try IERC20Permit(token).permit(owner, address(this), amount, permit.deadline, permit.v, permit.r, permit.s) {}
        catch {
            if (IERC20(token).allowance(owner, address(this)) < amount) revert PermitFailed(token, owner);
        }
    }

    function _record(
        bytes32 id,
        address sender,
        address receiver,
        address token,
        uint256 amount,
        address attester,
        uint64 holdDeadline,
        uint64 expiresAt
    ) private {
        // The upper 16 bytes must be zero: a UUID, left-padded (and never the nil UUID).
        if (id == bytes32(0) || uint256(id) >> 128 != 0) revert InvalidId(id);
        // Funds sent to the escrow itself could never leave it.
        if (receiver == address(0) || receiver == address(this)) revert InvalidAddress(receiver);
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint96).max) revert AmountTooLarge(amount);
        Escrow storage e = _escrows[id];
        if (e.status != Status.None) revert EscrowExists(id);
        // An id names one transaction: one `pay` or one escrow, never both.
        if (paymentIdUsed[id]) revert PaymentIdUsed(id);
        e.sender = sender;
        e.holdDeadline = holdDeadline;
        e.status = Status.Held;
        e.receiver = receiver;
        e.expiresAt = expiresAt;
        e.token = token;
        e.attester = attester;
        e.amount = uint96(amount);
        emit EscrowCreated(id, sender, receiver, token, amount, attester, holdDeadline, expiresAt);
    }

    /// @dev Pulls `amount` from `from` (which approved this escrow) and refuses any token that delivers a
    ///      different amount.
    function _pull(address token, address from, uint256 amount) private {
        uint256 before = IERC20(token).balanceOf(address(this));
        IERC20(token).safeTransferFrom(from, address(this), amount);
        _checkReceived(token, before, amount);
    }

    /// @dev Refuses a deposit that did not raise this escrow's balance from `before` by exactly `amount`.
    function _checkReceived(address token, uint256 before, uint256 amount) private view {
        uint256 balance = IERC20(token).balanceOf(address(this));
        // A token that shrinks our balance on a transfer into us reports as having delivered nothing.
        uint256 received = balance > before ? balance - before : 0;
        if (received != amount) revert TransferAmountMismatch(amount, received);
    }

    function _held(bytes32 id) private view returns (Escrow storage e) {
        e = _escrows[id];
        if (e.status == Status.None) revert UnknownEscrow(id);
        if (e.status != Status.Held) revert AlreadySettled(id, e.status);
    }

    function _payReceiver(bytes32 id, Escrow storage e, ReleaseReason reason) private {
        e.status = Status.Released;
        uint256 amount = e.amount;
        address receiver = e.receiver;
        emit EscrowReleased(id, receiver, msg.sender, amount, reason);
        IERC20(e.token).safeTransfer(receiver, amount);
    }

    // ------------------------------------------------------------------ forwarded payments

    /// @notice A payment without escrow (`pay`): its id, sender, receiver, token and amount. The log
    ///         ties the transfer to one Holdfast transaction, which a plain ERC-20 `Transfer` cannot do.
    event TransferForwarded(bytes32 indexed id, address indexed sender, address indexed receiver, address token, uint256 amount);

    /// @notice `pay` was already called with this id.
    error PaymentIdUsed(bytes32 id);

    /// @notice Ids `pay` has used (never reused, like escrow ids).
    mapping(bytes32 id => bool) public paymentIdUsed;

    /// @notice Pays `amount` of `token` from msg.sender (approve first, as for createEscrow) straight to
    ///         `receiver`, and logs `TransferForwarded` with `id`: the log names the transaction it pays.
    ///         Nothing is held: the contract never owns the funds, and nobody can move them afterwards.
    /// @param id The transaction's UUID left-padded to 32 bytes; never used before, by `pay` or by an escrow.
    function pay(bytes32 id, address receiver, address token, uint256 amount) external nonReentrant {
        if (id == bytes32(0) || uint256(id) >> 128 != 0) revert InvalidId(id);
        if (receiver == address(0) || receiver == address(this)) revert InvalidAddress(receiver);
        if (token.code.length == 0) revert InvalidAddress(token);
        if (amount == 0) revert ZeroAmount();
        if (paymentIdUsed[id]) revert PaymentIdUsed(id);
        if (_escrows[id].status != Status.None) revert EscrowExists(id);
        paymentIdUsed[id] = true;
        emit TransferForwarded(id, msg.sender, receiver, token, amount);
        uint256 before = IERC20(token).balanceOf(receiver);
        IERC20(token).safeTransferFrom(msg.sender, receiver, amount);
        uint256 balance = IERC20(token).balanceOf(receiver);
        // The log says `amount` reached the receiver: a token that delivers anything else is refused.
        uint256 received = balance > before ? balance - before : 0;
        if (received != amount) revert TransferAmountMismatch(amount, received);
    }
}

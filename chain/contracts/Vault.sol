// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC20 {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// Holds the exchange's tokens. Anyone deposits to their own account (a sub-account of their
/// address); the exchange's watcher credits the event. Only the operator pays withdrawals,
/// each withdrawal id at most once, and only the operator anchors state roots, each at a seq
/// above the last, so the anchored history can only grow.
contract Vault {
    struct Anchor {
        bytes32 stateRoot;
        bytes32 logHash;
    }

    /// Sub-accounts an address has (0 to 31, as the ledger's): a deposit for another one is refused,
    /// not taken into the Vault for an account the exchange cannot credit.
    uint32 public constant SUB_ACCOUNTS = 32;

    address public immutable operator;
    /// Withdrawal ids already paid.
    mapping(uint256 => bool) public paid;
    /// Every anchored seq, in order (so an auditor can list them without scanning logs).
    uint64[] public anchoredSeqs;
    mapping(uint64 => Anchor) private anchors;

    event Deposited(address indexed account, uint32 indexed subAccount, address indexed token, uint256 amount);
    event Withdrawn(uint256 indexed id, address indexed token, address indexed to, uint256 amount);
    event Anchored(uint64 indexed seq, bytes32 stateRoot, bytes32 logHash);

    error NotOperator();
    error AmountZero();
    error AlreadyPaid(uint256 id);
    error SeqNotAfter(uint64 seq, uint64 latest);
    error TokenTransferFailed();
    error NoAnchor(uint64 seq);
    error RootZero();
    error LengthMismatch();
    error SubAccountInvalid(uint32 subAccount);

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator();
        _;
    }

    constructor(address operator_) {
        operator = operator_;
    }

    function deposit(address token, uint256 amount, uint32 subAccount) external {
        if (amount == 0) revert AmountZero();
        if (subAccount >= SUB_ACCOUNTS) revert SubAccountInvalid(subAccount);
        if (!IERC20(token).transferFrom(msg.sender, address(this), amount)) revert TokenTransferFailed();
        emit Deposited(msg.sender, subAccount, token, amount);
    }

    function withdraw(uint256 id, address token, address to, uint256 amount) external onlyOperator {
        if (paid[id]) revert AlreadyPaid(id);
        pay(id, token, to, amount);
    }

    /// Pays several withdrawals in one transaction (one block for a queue of them). An id paid
    /// already is passed over, so a payment that landed meanwhile holds back none of the rest;
    /// any other failure reverts them all.
    function withdrawMany(uint256[] calldata ids, address[] calldata tokens, address[] calldata to, uint256[] calldata amounts)
        external onlyOperator
    {
        if (tokens.length != ids.length || to.length != ids.length || amounts.length != ids.length) revert LengthMismatch();
        for (uint256 i = 0; i < ids.length; i++) {
            if (!paid[ids[i]]) pay(ids[i], tokens[i], to[i], amounts[i]);
        }
    }

    function pay(uint256 id, address token, address to, uint256 amount) private {
        paid[id] = true;
        if (!IERC20(token).transfer(to, amount)) revert TokenTransferFailed();
        emit Withdrawn(id, token, to, amount);
    }

    function anchor(uint64 seq, bytes32 stateRoot, bytes32 logHash) external onlyOperator {
        uint64 latest = latestSeq();
        if (seq <= latest) revert SeqNotAfter(seq, latest);
        if (stateRoot == bytes32(0)) revert RootZero();
        anchors[seq] = Anchor(stateRoot, logHash);
        anchoredSeqs.push(seq);
        emit Anchored(seq, stateRoot, logHash);
    }

    /// The newest anchored seq, 0 before the first anchor.
    function latestSeq() public view returns (uint64) {
        uint256 n = anchoredSeqs.length;
        return n == 0 ? 0 : anchoredSeqs[n - 1];
    }

    function anchorCount() external view returns (uint256) {
        return anchoredSeqs.length;
    }

    function anchorAt(uint64 seq) external view returns (bytes32 stateRoot, bytes32 logHash) {
        Anchor memory a = anchors[seq];
        if (a.stateRoot == bytes32(0)) revert NoAnchor(seq);
        return (a.stateRoot, a.logHash);
    }

    function latestAnchor() external view returns (uint64 seq, bytes32 stateRoot, bytes32 logHash) {
        seq = latestSeq();
        Anchor memory a = anchors[seq];
        return (seq, a.stateRoot, a.logHash);
    }
}

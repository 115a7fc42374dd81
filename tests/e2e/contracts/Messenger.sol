// SPDX-License-Identifier: MIT
// A minimal interchain (ICM) messenger of snowline's own, for the end-to-end EVM world. It emits
// the same events (same signatures, so the same topics) as the real TeleporterMessenger and
// computes the same message IDs, but is not that contract: anvil has no Warp precompile, so it is
// told its own blockchain ID once (initializeBlockchainID) and a relayer hands it a delivered
// message directly (deliverCrossChainMessage), trusted as-is. See docs/evm-tests.md.
pragma solidity 0.8.28;

struct TeleporterMessageReceipt {
    uint256 receivedMessageNonce;
    address relayerRewardAddress;
}

struct TeleporterFeeInfo {
    address feeTokenAddress;
    uint256 amount;
}

struct TeleporterMessage {
    uint256 messageNonce;
    address originSenderAddress;
    bytes32 destinationBlockchainID;
    address destinationAddress;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    TeleporterMessageReceipt[] receipts;
    bytes message;
}

struct TeleporterMessageInput {
    bytes32 destinationBlockchainID;
    address destinationAddress;
    TeleporterFeeInfo feeInfo;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    bytes message;
}

interface IFeeToken {
    function balanceOf(address) external view returns (uint256);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
}

interface ITestMessageReceiver {
    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external;
}

contract TestMessenger {
    event BlockchainIDInitialized(bytes32 indexed blockchainID);
    event SendCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        TeleporterMessage message,
        TeleporterFeeInfo feeInfo
    );
    event AddFeeAmount(bytes32 indexed messageID, TeleporterFeeInfo updatedFeeInfo);
    event ReceiveCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed sourceBlockchainID,
        address indexed deliverer,
        address rewardRedeemer,
        TeleporterMessage message
    );
    event MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID);
    event MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message);
    event ReceiptReceived(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        address indexed relayerRewardAddress,
        TeleporterFeeInfo feeInfo
    );
    event RelayerRewardsRedeemed(address indexed redeemer, address indexed asset, uint256 amount);

    uint256 public constant MAX_RECEIPTS = 5;

    bytes32 public blockchainID;
    uint256 public messageNonce;
    // sent messages still waiting for their receipt: fee paid so far
    mapping(bytes32 => TeleporterFeeInfo) public sentFee;
    mapping(bytes32 => bool) public sentPending;
    // delivered messages: who redeems the reward
    mapping(bytes32 => address) public relayerRewardAddress;
    mapping(bytes32 => bool) public messageReceived;
    // failed executions: hash of the message, for retryMessageExecution
    mapping(bytes32 => bytes32) public failedMessageHash;
    // receipts owed to each source chain, sent back with the next messages to it
    mapping(bytes32 => TeleporterMessageReceipt[]) internal owed;
    mapping(bytes32 => uint256) public owedHead;
    mapping(address => mapping(address => uint256)) public relayerRewards;

    function initializeBlockchainID(bytes32 id) external {
        require(blockchainID == bytes32(0), "messenger: id already set");
        require(id != bytes32(0), "messenger: zero id");
        blockchainID = id;
        emit BlockchainIDInitialized(id);
    }

    function calculateMessageID(bytes32 sourceBlockchainID, bytes32 destinationBlockchainID, uint256 nonce)
        public
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(address(this), sourceBlockchainID, destinationBlockchainID, nonce));
    }

    function getNextMessageID(bytes32 destinationBlockchainID) external view returns (bytes32) {
        return calculateMessageID(blockchainID, destinationBlockchainID, messageNonce + 1);
    }

    function owedReceipts(bytes32 chain) external view returns (uint256) {
        return owed[chain].length - owedHead[chain];
    }

    function sendCrossChainMessage(TeleporterMessageInput calldata input) external returns (bytes32 messageID) {
        require(blockchainID != bytes32(0), "messenger: no blockchain id");
        require(input.destinationBlockchainID != blockchainID, "messenger: same chain");
        TeleporterFeeInfo memory fee = TeleporterFeeInfo(input.feeInfo.feeTokenAddress, 0);
        if (input.feeInfo.amount > 0) {
            require(fee.feeTokenAddress != address(0), "messenger: zero fee token");
            fee.amount = _collect(fee.feeTokenAddress, input.feeInfo.amount);
        }
        uint256 nonce = ++messageNonce;
        messageID = calculateMessageID(blockchainID, input.destinationBlockchainID, nonce);

        TeleporterMessageReceipt[] storage q = owed[input.destinationBlockchainID];
        uint256 head = owedHead[input.destinationBlockchainID];
        uint256 n = q.length - head;
        if (n > MAX_RECEIPTS) n = MAX_RECEIPTS;
        TeleporterMessageReceipt[] memory receipts = new TeleporterMessageReceipt[](n);
        for (uint256 i = 0; i < n; i++) receipts[i] = q[head + i];
        owedHead[input.destinationBlockchainID] = head + n;

        TeleporterMessage memory m = TeleporterMessage({
            messageNonce: nonce,
            originSenderAddress: msg.sender,
            destinationBlockchainID: input.destinationBlockchainID,
            destinationAddress: input.destinationAddress,
            requiredGasLimit: input.requiredGasLimit,
            allowedRelayerAddresses: input.allowedRelayerAddresses,
            receipts: receipts,
            message: input.message
        });
        sentFee[messageID] = fee;
        sentPending[messageID] = true;
        emit SendCrossChainMessage(messageID, input.destinationBlockchainID, m, fee);
    }

    function addFeeAmount(bytes32 messageID, address feeTokenAddress, uint256 additionalFeeAmount) external {
        require(sentPending[messageID], "messenger: not a pending message");
        require(additionalFeeAmount > 0, "messenger: zero amount");
        TeleporterFeeInfo storage fee = sentFee[messageID];
        require(fee.amount == 0 || fee.feeTokenAddress == feeTokenAddress, "messenger: other fee token");
        fee.feeTokenAddress = feeTokenAddress;
        fee.amount += _collect(feeTokenAddress, additionalFeeAmount);
        emit AddFeeAmount(messageID, fee);
    }

    // What the real messenger reads from a signed Warp message, the relayer hands over here.
    function deliverCrossChainMessage(bytes32 sourceBlockchainID, TeleporterMessage calldata message, address rewardRedeemer)
        external
    {
        require(blockchainID != bytes32(0), "messenger: no blockchain id");
        require(message.destinationBlockchainID == blockchainID, "messenger: wrong destination");
        require(rewardRedeemer != address(0), "messenger: zero redeemer");
        if (message.allowedRelayerAddresses.length > 0) {
            bool allowed;
            for (uint256 i = 0; i < message.allowedRelayerAddresses.length; i++) {
                if (message.allowedRelayerAddresses[i] == msg.sender) allowed = true;
            }
            require(allowed, "messenger: relayer not allowed");
        }
        bytes32 messageID = calculateMessageID(sourceBlockchainID, blockchainID, message.messageNonce);
        require(!messageReceived[messageID], "messenger: already delivered");
        messageReceived[messageID] = true;
        relayerRewardAddress[messageID] = rewardRedeemer;
        owed[sourceBlockchainID].push(TeleporterMessageReceipt(message.messageNonce, rewardRedeemer));

        for (uint256 i = 0; i < message.receipts.length; i++) {
            _receipt(sourceBlockchainID, message.receipts[i]);
        }
        emit ReceiveCrossChainMessage(messageID, sourceBlockchainID, msg.sender, rewardRedeemer, message);

        if (message.message.length == 0) return;
        require(gasleft() >= message.requiredGasLimit + 40000, "messenger: insufficient gas");
        bool ok;
        if (message.destinationAddress.code.length > 0) {
            (ok,) = message.destinationAddress.call{gas: message.requiredGasLimit}(
                abi.encodeCall(
                    ITestMessageReceiver.receiveTeleporterMessage,
                    (sourceBlockchainID, message.originSenderAddress, message.message)
                )
            );
        }
        if (ok) {
            emit MessageExecuted(messageID, sourceBlockchainID);
        } else {
            failedMessageHash[messageID] = keccak256(abi.encode(message));
            emit MessageExecutionFailed(messageID, sourceBlockchainID, message);
        }
    }

    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage calldata message) external {
        bytes32 messageID = calculateMessageID(sourceBlockchainID, blockchainID, message.messageNonce);
        bytes32 h = failedMessageHash[messageID];
        require(h != bytes32(0), "messenger: no failed message");
        require(h == keccak256(abi.encode(message)), "messenger: message differs");
        delete failedMessageHash[messageID];
        ITestMessageReceiver(message.destinationAddress).receiveTeleporterMessage(
            sourceBlockchainID, message.originSenderAddress, message.message
        );
        emit MessageExecuted(messageID, sourceBlockchainID);
    }

    function redeemRelayerRewards(address asset) external {
        uint256 amount = relayerRewards[msg.sender][asset];
        require(amount > 0, "messenger: no reward");
        relayerRewards[msg.sender][asset] = 0;
        require(IFeeToken(asset).transfer(msg.sender, amount), "messenger: transfer failed");
        emit RelayerRewardsRedeemed(msg.sender, asset, amount);
    }

    function _receipt(bytes32 destinationBlockchainID, TeleporterMessageReceipt calldata r) internal {
        bytes32 id = calculateMessageID(blockchainID, destinationBlockchainID, r.receivedMessageNonce);
        if (!sentPending[id]) return;
        TeleporterFeeInfo memory fee = sentFee[id];
        delete sentPending[id];
        delete sentFee[id];
        if (fee.amount > 0) relayerRewards[r.relayerRewardAddress][fee.feeTokenAddress] += fee.amount;
        emit ReceiptReceived(id, destinationBlockchainID, r.relayerRewardAddress, fee);
    }

    function _collect(address token, uint256 amount) internal returns (uint256) {
        uint256 before = IFeeToken(token).balanceOf(address(this));
        require(IFeeToken(token).transferFrom(msg.sender, address(this), amount), "messenger: fee transfer failed");
        return IFeeToken(token).balanceOf(address(this)) - before;
    }
}

// Receives messages; can be told to fail, to leave a message in the failed state for a retry.
contract TestReceiver {
    event Received(bytes32 indexed sourceBlockchainID, address indexed originSenderAddress, bytes message);

    address public immutable messenger;
    bool public failing;
    uint256 public received;
    bytes public lastMessage;

    constructor(address messenger_) {
        messenger = messenger_;
    }

    function setFailing(bool f) external {
        failing = f;
    }

    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external
    {
        require(msg.sender == messenger, "receiver: not the messenger");
        require(!failing, "receiver: failing");
        received += 1;
        lastMessage = message;
        emit Received(sourceBlockchainID, originSenderAddress, message);
    }
}

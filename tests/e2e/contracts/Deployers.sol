// SPDX-License-Identifier: MIT
// Contracts whose deployment itself does what getDeployment reports of a tx, for the end-to-end
// EVM world (tests/e2e/evm-lib.mjs): their constructors mint and move NFTs of both standards, send
// an ICM message, or deliver one. Each is deployed directly, so its deploying tx is that work.
pragma solidity 0.8.28;

import "./Tokens.sol";
import "./Messenger.sol";

// Its constructor mints and moves NFTs: ERC-721 `firstId` to itself and on to `to`, `firstId + 1`
// straight to `to`; ERC-1155 `id` (5) to itself, 2 of them on to `to`, and a batch of `id + 1`
// (1) and `id + 2` (2) to `to`. The deploying tx has erc721 and erc1155 transfers, mints among them.
contract NftDrop {
    constructor(TestERC721 nft, uint256 firstId, TestERC1155 mt, uint256 id, address to) {
        nft.mint(address(this), firstId);
        nft.transferFrom(address(this), to, firstId);
        nft.mint(to, firstId + 1);
        mt.mint(address(this), id, 5);
        mt.safeTransferFrom(address(this), to, id, 2, "");
        uint256[] memory ids = new uint256[](2);
        uint256[] memory amounts = new uint256[](2);
        ids[0] = id + 1;
        ids[1] = id + 2;
        amounts[0] = 1;
        amounts[1] = 2;
        mt.mintBatch(to, ids, amounts);
    }
}

// Its constructor sends an ICM message (no fee): the message's originSenderAddress is this
// contract, and its deploying tx is the message's source tx.
contract IcmGreeter {
    constructor(TestMessenger messenger, bytes32 destination, address to, bytes memory payload) {
        messenger.sendCrossChainMessage(
            TeleporterMessageInput({
                destinationBlockchainID: destination,
                destinationAddress: to,
                feeInfo: TeleporterFeeInfo(address(0), 0),
                requiredGasLimit: 200000,
                allowedRelayerAddresses: new address[](0),
                message: payload
            })
        );
    }
}

// Its constructor delivers an ICM message, as a relayer would (the messenger's deliverer is this
// contract): its deploying tx is the message's destination tx.
contract IcmCourier {
    constructor(TestMessenger messenger, bytes32 source, TeleporterMessage memory message, address rewardRedeemer) {
        messenger.deliverCrossChainMessage(source, message, rewardRedeemer);
    }
}

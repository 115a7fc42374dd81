// SPDX-License-Identifier: MIT
// Contracts that create contracts and move value inside a tx, for the end-to-end EVM world:
// CREATE and CREATE2 from a factory, a constructor that itself creates a contract, internal
// txs with value, and sub-calls that revert (caught, or bubbling up to a status-0 tx).
pragma solidity 0.8.28;

import "./Tokens.sol";

contract Child {
    uint256 public tag;
    address public creator;

    constructor(uint256 tag_) payable {
        tag = tag_;
        creator = msg.sender;
    }
}

// Its constructor creates another contract (a Child), so one tx makes two nested creations.
contract Nester {
    Child public inner;

    constructor(uint256 tag_) payable {
        inner = new Child{value: msg.value / 2}(tag_);
    }
}

contract Reverter {
    function boom(uint256 code) external pure {
        revert(string(abi.encodePacked("reverter: boom ", bytes1(uint8(48 + (code % 10))))));
    }
}

contract Factory {
    event Created(address indexed child, uint8 kind, uint256 tag);

    Reverter public reverter;

    constructor() {
        reverter = new Reverter();
    }

    function create(uint256 tag) external payable returns (address c) {
        c = address(new Child{value: msg.value}(tag));
        emit Created(c, 0, tag);
    }

    function create2(bytes32 salt, uint256 tag) external payable returns (address c) {
        c = address(new Child{salt: salt, value: msg.value}(tag));
        emit Created(c, 1, tag);
    }

    function createNested(uint256 tag) external payable returns (address c) {
        c = address(new Nester{value: msg.value}(tag));
        emit Created(c, 2, tag);
    }

    function createToken(bytes32 salt, string calldata name, string calldata symbol) external returns (address t) {
        TestERC20 token = new TestERC20{salt: salt}(name, symbol, 6);
        token.mint(msg.sender, 1_000_000);
        t = address(token);
        emit Created(t, 3, 0);
    }

    // Internal txs with value: msg.value split between two recipients.
    function split(address payable a, address payable b) external payable {
        uint256 half = msg.value / 2;
        (bool ok1,) = a.call{value: half}("");
        (bool ok2,) = b.call{value: msg.value - half}("");
        require(ok1 && ok2, "factory: split failed");
    }

    // A sub-call reverts and is caught: the tx succeeds, one internal frame failed.
    function tryBoom(uint256 code) external returns (bool ok) {
        try reverter.boom(code) {
            ok = true;
        } catch {
            ok = false;
        }
    }

    // A sub-call reverts and the revert bubbles up: the tx fails (status 0).
    function boom(uint256 code) external payable {
        reverter.boom(code);
    }

    receive() external payable {}
}

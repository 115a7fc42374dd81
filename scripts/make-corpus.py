#!/usr/bin/env python3
"""Write the codec fuzz seed corpora (fuzz/corpus/fuzz_{pchain,xchain,atomic,container}/)
from the shared test vectors. Each seed is the raw bytes of one vector,
named by the first 16 hex digits of its sha256. Re-running is idempotent.

usage: scripts/make-corpus.py [VECTORS_DIR]   (default tests/vectors)
"""
import hashlib
import json
import os
import struct
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
vec = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "tests", "vectors")


def load(name):
    with open(os.path.join(vec, name)) as f:
        return json.load(f)


def put(target, data):
    d = os.path.join(root, "fuzz", "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha256(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


p = load("pchain-txs.json")
for v in p["signed_txs"] + p["unsigned_txs"]:
    put("fuzz_pchain", bytes.fromhex(v["hex"]))
for v in load("pchain-blocks.json")["blocks"]:
    put("fuzz_pchain", bytes.fromhex(v["hex"]))
x_txs = []
for v in load("xchain-txs.json")["txs"]:
    put("fuzz_xchain", bytes.fromhex(v["hex"]))
    x_txs.append(bytes.fromhex(v["hex"]))
for v in load("derived-blocks.json")["vectors"]:
    if v["kind"] == "pchain.block":
        put("fuzz_pchain", bytes.fromhex(v["hex"]))
    elif v["kind"] in ("xchain.block", "xchain.vertex"):
        put("fuzz_xchain", bytes.fromhex(v["hex"]))

# Atomic seeds are assembled (no upstream atomic vectors): one ImportTx and
# one ExportTx, alone (pre-ApricotPhase5) and as a batch.
ID = lambda b: bytes([b]) * 32
sig = bytes(range(64)) + b"\x01"
creds = struct.pack(">III", 1, 9, 1) + sig
imp = (struct.pack(">II", 0, 1) + ID(0xc1) + ID(0x11)
       + struct.pack(">I", 1) + ID(0x22) + struct.pack(">I", 0) + ID(0xaa)
       + struct.pack(">IQII", 5, 1000000000, 1, 0)
       + struct.pack(">I", 1) + bytes(range(20)) + struct.pack(">Q", 999000000) + ID(0xaa))
exp = (struct.pack(">II", 1, 1) + ID(0xc1) + ID(0x11)
       + struct.pack(">I", 1) + bytes(range(20)) + struct.pack(">Q", 5000000) + ID(0xaa) + struct.pack(">Q", 7)
       + struct.pack(">I", 1) + ID(0xaa) + struct.pack(">IQQII", 7, 4000000, 0, 1, 1) + bytes(range(1, 21)))
put("fuzz_atomic", b"\0\0" + imp + creds)
put("fuzz_atomic", b"\0\0" + exp + creds)
put("fuzz_atomic", b"\0\0" + struct.pack(">I", 2) + imp + creds + exp + creds)

# fuzz_container (codec/formats): every vector of every chain, bare and
# wrapped, plus the cases decode once hid: a wrapper whose inner block does
# not decode, a truncated container, a C-chain block with both extData layouts.
container = []
for f, key in (("pchain-txs.json", "signed_txs"), ("pchain-txs.json", "unsigned_txs"), ("pchain-blocks.json", "blocks"),
               ("xchain-txs.json", "txs"), ("derived-blocks.json", "vectors"), ("cchain-blocks.json", "vectors"),
               ("proposervm.json", "vectors"), ("warp.json", "vectors")):
    for v in load(f)[key]:
        container.append(bytes.fromhex(v["hex"]))


def proposervm(inner):
    return (b"\0\0" + struct.pack(">I", 0) + ID(0x5a) + struct.pack(">QQI", 1700000000, 123, 0)
            + struct.pack(">I", len(inner)) + inner + struct.pack(">I", 0))


wrapped = next(bytes.fromhex(v["hex"]) for v in load("derived-blocks.json")["vectors"]
               if v["kind"] == "proposervm.block" and "innerBlockID" in v["expected"])
bad = bytearray(wrapped)
bad[62 + 46:62 + 50] = b"\xff" * 4  # the inner block's tx count
container += [bytes(bad), wrapped[:200]]
xblock = next(bytes.fromhex(v["hex"]) for v in load("derived-blocks.json")["vectors"] if v["kind"] == "xchain.block")
container.append(proposervm(xblock))
for c in load("cchain-blocks.json")["vectors"]:
    container.append(proposervm(bytes.fromhex(c["hex"])))


def rlp(x):
    def head(off, n):
        if n < 56:
            return bytes([off + n])
        ln = n.to_bytes((n.bit_length() + 7) // 8, "big")
        return bytes([off + 55 + len(ln)]) + ln
    if isinstance(x, list):
        body = b"".join(rlp(i) for i in x)
        return head(0xc0, len(body)) + body
    if len(x) == 1 and x[0] < 0x80:
        return x
    return head(0x80, len(x)) + x


def uint(n):
    return n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""


def coreth(time, ext):
    header = [ID(1), ID(2), bytes([3]) * 20, ID(4), ID(5), ID(6), bytes(256), uint(1), uint(42), uint(8000000),
              uint(0), uint(time), b"", bytes(32), bytes(8), ID(9)]
    return rlp([header, [], [], uint(0), ext])


single = b"\0\0" + imp + creds
batch = b"\0\0" + struct.pack(">I", 1) + imp + creds
for t in (1617000000, 1700000000):  # before and after mainnet's ApricotPhase5
    for ext in (single, batch, b"nonsense"):
        container.append(coreth(t, ext))
        container.append(proposervm(coreth(t, ext)))
for c in container:
    put("fuzz_container", c)

#!/usr/bin/env python3
"""Write the codec fuzz seed corpora (fuzz/corpus/fuzz_{pchain,xchain,atomic}/)
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

/*
 * schema.c — the SQL store's schema and its migrations (docs/store.md has
 * the reasoning behind each table).
 *
 * Conventions every table keeps:
 *   chain      0 P, 1 X, 2 C (the primary network's chains, see index/rows.h);
 *              in address tables also 3: the C-chain's EVM (0x) addresses
 *   ids        32-byte blobs (tx, block, UTXO, asset ids); addresses 20-byte blobs
 *   amounts    8-byte big-endian blobs (sql.h: their byte order is their order)
 *   times      unix seconds
 *   seq        a tx's place in its chain: (height << 20 | position) for the txs
 *              of P and C blocks, SL_SEQ_LINEAR + (height << 20 | position) for
 *              X-chain block txs, the X/tx index position + 1 for DAG-era X txs
 *              (0: the genesis); so
 *              ordering by seq is ordering by time, uniquely and the same in
 *              every store whatever order the node's indexes were read in.
 * Every row is a function of the containers alone: no insertion counters,
 * no arrival times. A UTXO's creation and consumption may arrive in either
 * order (an import before the export that made its UTXO, an X-chain block
 * spending a DAG tx's output): both sides upsert the same row, and the rows
 * derived from both (address activity, consumed flags) are written by
 * whichever side comes second.
 *
 * Tables are laid out for their read paths: the UTXO and transaction lists
 * of an address are clustered on (chain, address, time), so a page is one
 * contiguous range (WITHOUT ROWID in SQLite; in PostgreSQL the primary key
 * index, which the planner reads in order).
 */
#include "store/sql_backend.h"

static const char *const v1[] = {
	/* What the store holds: its network, the page-token secret, its creator. */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value {blob} NOT NULL)",

	/* Per index of the node (0 P/block, 1 C/block, 2 X/tx, 3 X/block, 4 X/vtx): the next
	 * container to apply and the id of the last one applied, written in the transaction of
	 * the batch it follows, so a crash loses the batch and its cursor together. head: how many
	 * containers the node had when last asked; caught_up_ms: when the indexer last held all of
	 * them (unix ms). Any API server reads these two for its lag metrics. */
	"CREATE TABLE cursors (kind {int} PRIMARY KEY, next {int} NOT NULL, last_id {blob}, head {int}, "
	"caught_up_ms {int})",

	/* Blocks of P, of the linear X-chain and of C. hash: the chain's own block id (the inner
	 * block of a proposervm container); vm_*: the proposervm wrapper (NULL when bare);
	 * proposer: its node id (NULL when unsigned). txs: ntx * 32 bytes of tx ids. */
	"CREATE TABLE blocks (chain {int} NOT NULL, height {int} NOT NULL, hash {blob} NOT NULL, "
	"parent {blob} NOT NULL, ts {int} NOT NULL, type {int} NOT NULL, size {int} NOT NULL, "
	"ntx {int} NOT NULL, txs {blob} NOT NULL, vm_id {blob}, vm_parent {blob}, proposer {blob}, "
	"vm_height {int}, vm_ts {int}, ipos {int} NOT NULL, PRIMARY KEY (chain, height)) {without_rowid}",
	"CREATE INDEX blocks_hash ON blocks (hash)",
	"CREATE INDEX blocks_proposer ON blocks (chain, proposer, height)",

	/* X-chain vertices of the DAG era, by their place in the X/vtx index. */
	"CREATE TABLE vertices (ipos {int} PRIMARY KEY, hash {blob} NOT NULL, height {int} NOT NULL, "
	"ts {int} NOT NULL, parents {blob} NOT NULL, ntx {int} NOT NULL, txs {blob} NOT NULL, size {int} NOT NULL)",
	"CREATE INDEX vertices_height ON vertices (height, ipos)",
	"CREATE UNIQUE INDEX vertices_hash ON vertices (hash)",
	"CREATE TABLE vertex_txs (tx {blob} NOT NULL, ipos {int} NOT NULL, PRIMARY KEY (tx, ipos)) {without_rowid}",

	/* Every tx of P, X and the C-chain's atomic txs, clustered by seq. bytes: the signed tx
	 * with its codec version; the API decodes it for the fields the tx itself determines.
	 * height/block: its block (NULL for DAG-era X txs). type: the codec type id (atomic txs:
	 * 0 import, 1 export). */
	"CREATE TABLE txs (chain {int} NOT NULL, seq {int} NOT NULL, id {blob} NOT NULL, ts {int} NOT NULL, "
	"type {int} NOT NULL, height {int}, block {blob}, bytes {blob} NOT NULL, PRIMARY KEY (chain, seq)) "
	"{without_rowid}",
	"CREATE UNIQUE INDEX txs_id ON txs (id, chain)",

	/* UTXOs by id: the creation columns are NULL until the creating tx is applied, the
	 * consumption columns (c*) until the consuming one is. chain: where it was created;
	 * dest: where it is spent (the destination of an export; else chain). otype: the output's
	 * type id on the wire (7 transfer, 22 stakeable lock, 6/10/11/15/16 X-chain mint, nft and
	 * property outputs); stake_lock: a lock output's locktime. staked: a stake output, locked
	 * from stake_start to stake_end and returned (unstaked) by the RewardValidatorTx at that
	 * time. reward: 1 validator, 2 delegator, 3 validator fee, for reward UTXOs. */
	"CREATE TABLE utxos (id {blob} PRIMARY KEY, tx {blob}, idx {int}, chain {int}, dest {int}, "
	"asset {blob}, amount {blob}, otype {int}, locktime {int}, stake_lock {int}, threshold {int}, "
	"addrs {blob}, group_id {int}, payload {blob}, staked {int}, stake_start {int}, stake_end {int}, "
	"reward {int}, height {int}, block {blob}, ts {int}, seq {int}, unstaked {int}, "
	"ctx {blob}, cchain {int}, cheight {int}, cblock {blob}, cts {int}, cseq {int}, cin {int}, ctype {int}) "
	"{without_rowid}",

	/* The UTXOs an address owns, on the chain where they are spent (dest), whole, so a page
	 * of them is one range read: the same columns as utxos, one row per owner. */
	"CREATE TABLE addr_utxos (chain {int} NOT NULL, addr {blob} NOT NULL, ts {int} NOT NULL, id {blob} NOT NULL, "
	"tx {blob}, idx {int}, created {int}, asset {blob}, amount {blob}, otype {int}, locktime {int}, "
	"stake_lock {int}, threshold {int}, addrs {blob}, group_id {int}, payload {blob}, staked {int}, "
	"stake_start {int}, stake_end {int}, reward {int}, height {int}, block {blob}, seq {int}, unstaked {int}, "
	"ctx {blob}, cchain {int}, cheight {int}, cblock {blob}, cts {int}, cseq {int}, cin {int}, "
	"PRIMARY KEY (chain, addr, ts, id)) {without_rowid}",
	"CREATE INDEX addr_utxos_id ON addr_utxos (id)",
	"CREATE INDEX addr_utxos_amount ON addr_utxos (chain, addr, amount, id)",

	/* The txs an address took part in (owned an input or an output, or is a staking tx's
	 * reward owner, a subnet's owner, ...), by chain: 0 P, 1 X, 2 C (bech32 owners of atomic
	 * UTXOs), 3 C (EVM addresses of atomic txs). */
	"CREATE TABLE addr_txs (chain {int} NOT NULL, addr {blob} NOT NULL, seq {int} NOT NULL, ts {int} NOT NULL, "
	"type {int} NOT NULL, PRIMARY KEY (chain, addr, seq)) {without_rowid}",

	/* X-chain assets (AVAX is entered with the network), and the txs of each. type: 0
	 * secp256k1, 1 nft; cap: 0 fixed, 1 variable (it has mint outputs). */
	"CREATE TABLE assets (id {blob} PRIMARY KEY, name TEXT NOT NULL, symbol TEXT NOT NULL, "
	"denomination {int} NOT NULL, type {int} NOT NULL, cap {int} NOT NULL, tx {blob}, ts {int})",
	"CREATE TABLE asset_txs (asset {blob} NOT NULL, seq {int} NOT NULL, ts {int} NOT NULL, type {int} NOT NULL, "
	"PRIMARY KEY (asset, seq)) {without_rowid}",

	/* P-chain stakers, from their txs: the staking model of the validators and rewards
	 * endpoints builds on them. fee: delegation shares (parts per million); rewards_owner /
	 * delegation_owner: threshold u32 | locktime u64 | addresses, as one blob each. end_tx:
	 * the RewardValidatorTx (committed 1/0) or RemoveSubnetValidatorTx that ended it. */
	"CREATE TABLE stakers (tx {blob} PRIMARY KEY, seq {int} NOT NULL, type {int} NOT NULL, node {blob} NOT NULL, "
	"subnet {blob} NOT NULL, start_ts {int} NOT NULL, end_ts {int} NOT NULL, weight {int} NOT NULL, "
	"fee {int}, nouts {int} NOT NULL, nstake {int} NOT NULL, rewards_owner {blob}, delegation_owner {blob}, "
	"bls_key {blob}, bls_pop {blob}, accepted_ts {int} NOT NULL, end_tx {blob}, end_ts_actual {int}, "
	"committed {int})",
	"CREATE INDEX stakers_node ON stakers (node, seq)",

	/* The P-chain txs about each L1 validation (codec/l1.h says which), for l1ValidationId. */
	"CREATE TABLE l1_txs (vid {blob} NOT NULL, seq {int} NOT NULL, ts {int} NOT NULL, type {int} NOT NULL, "
	"PRIMARY KEY (vid, seq)) {without_rowid}",

	/* Reward UTXOs paid for a staking tx (platform.getRewardUTXOs of the node). */
	"CREATE TABLE rewards (staking_tx {blob} NOT NULL, utxo {blob} NOT NULL, type {int} NOT NULL, "
	"PRIMARY KEY (staking_tx, utxo)) {without_rowid}",
	NULL,
};

/*
 * Version 2: the unspent UTXOs of an address in both sorts. A page of unspent UTXOs (the default,
 * includeSpent=false) read the clustered range and skipped the spent rows: ~5,000 rows for a page
 * of 100 for an address with 87% of its 66k UTXOs spent. These hold only the unspent ones (a
 * spend removes its entry), so a page reads its 100 entries and their rows.
 */
static const char *const v2[] = {
	"CREATE INDEX IF NOT EXISTS addr_utxos_unspent ON addr_utxos (chain, addr, ts, id) WHERE cts IS NULL",
	"CREATE INDEX IF NOT EXISTS addr_utxos_unspent_amount ON addr_utxos (chain, addr, amount, id) "
	"WHERE cts IS NULL",
	NULL,
};

/*
 * Version 3: the P-chain's subnets, chains and L1 validators, and the L1 fee state after each P
 * block (the state model of the staking endpoints). A store indexed before it reads the P-chain
 * again from its first block, to fill them: every other row it writes is there already, and
 * each write is an idempotent upsert.
 */
static const char *const v3[] = {
	/* Subnets by their CreateSubnetTx (id = its tx id; seq: its place, the list's order). owner:
	 * the current owner (ix_staker's blob), changed by TransferSubnetOwnershipTx. l1_tx: the
	 * ConvertSubnetToL1Tx that made it an L1, with its validator manager (chain, address). */
	"CREATE TABLE subnets (id {blob} PRIMARY KEY, seq {int} NOT NULL, height {int} NOT NULL, ts {int} NOT NULL, "
	"owner {blob} NOT NULL, l1_tx {blob}, l1_ts {int}, manager_chain {blob}, manager_addr {blob})",
	"CREATE UNIQUE INDEX subnets_seq ON subnets (seq)",

	/* Blockchains by their CreateChainTx: name, VM id, genesis bytes as the tx holds them. */
	"CREATE TABLE chains (id {blob} PRIMARY KEY, subnet {blob} NOT NULL, seq {int} NOT NULL, height {int} NOT NULL, "
	"ts {int} NOT NULL, name {blob} NOT NULL, vm {blob} NOT NULL, genesis {blob} NOT NULL)",
	"CREATE INDEX chains_subnet ON chains (subnet, seq)",

	/* L1 validators by validation id (ACP-77), made by a ConvertSubnetToL1Tx or a
	 * RegisterL1ValidatorTx (tx, seq, ts). weight and end_fee are 8-byte big-endian like amounts.
	 * end_fee: the accrued fees at which its balance runs out (0: inactive); its remaining
	 * balance is end_fee minus the chain's accrued fees (blocks.l1_fees). owners: the remaining
	 * balance and deactivation owners (threshold u32 | 0 u64 | addresses). removed_tx: the
	 * SetL1ValidatorWeightTx that set its weight to 0 (the chain forgets it then; kept here). */
	"CREATE TABLE l1_validators (vid {blob} PRIMARY KEY, subnet {blob} NOT NULL, node {blob} NOT NULL, "
	"tx {blob} NOT NULL, seq {int} NOT NULL, ts {int} NOT NULL, weight {blob} NOT NULL, bls_key {blob}, "
	"rb_owner {blob} NOT NULL, deact_owner {blob} NOT NULL, min_nonce {int} NOT NULL, end_fee {blob} NOT NULL, "
	"removed_tx {blob}, removed_ts {int})",
	"CREATE INDEX l1_validators_subnet ON l1_validators (subnet, seq)",
	"CREATE INDEX l1_validators_node ON l1_validators (node, seq)",
	"CREATE INDEX l1_validators_seq ON l1_validators (seq)",
	"CREATE INDEX l1_validators_end ON l1_validators (end_fee)",

	/* The L1 fee state after each P block: active L1 validators, the fees accrued since Etna
	 * (or the first L1 validator: codec/l1.h) and the fee's excess, 8-byte big-endian. */
	"ALTER TABLE blocks ADD COLUMN l1_active {int}",
	"ALTER TABLE blocks ADD COLUMN l1_fees {blob}",
	"ALTER TABLE blocks ADD COLUMN l1_excess {blob}",

	"UPDATE cursors SET next = 0, last_id = NULL WHERE kind = 0",
	NULL,
};

/*
 * Version 4: the primary network's supply and its stakers' potential rewards (avalanchego's
 * reward.Calculator, codec/rewards.h), which need the P-chain in order like version 3 did.
 */
static const char *const v4[] = {
	/* potential: the reward a primary-network staker earns if committed, fixed when it starts
	 * from the supply of that moment (8-byte big-endian); NULL while pending; 0 for stakers of
	 * other subnets, which earn none. */
	"ALTER TABLE stakers ADD COLUMN potential {blob}",
	"CREATE INDEX stakers_pending ON stakers (start_ts) WHERE potential IS NULL",
	/* supply: the primary network's current supply after each P block (platform.getCurrentSupply:
	 * the genesis, plus every staker's potential reward when it starts, minus an aborted one's) */
	"ALTER TABLE blocks ADD COLUMN supply {blob}",
	/* the rewards list (api/rewards.c): an address's reward UTXOs alone, in time order, and a
	 * node's stakers by the time their period ended */
	"CREATE INDEX addr_utxos_reward ON addr_utxos (chain, addr, ts, id) WHERE reward > 0",
	"CREATE INDEX stakers_node_end ON stakers (node, end_ts_actual)",
	"UPDATE cursors SET next = 0, last_id = NULL WHERE kind = 0",
	NULL,
};

/*
 * Version 5: what the indexer observes of the node's validators (platform.getCurrentValidators,
 * sampled every --observe-s): not chain data, so not in the canonical dump. And the removals of
 * permissioned subnet validators, which need the P-chain read again. uptime: the last
 * sample's, in millionths (97.16% = 971600); samples / reachable: how often it was sampled and
 * seen connected.
 */
static const char *const v5[] = {
	"CREATE TABLE node_obs (node {blob} PRIMARY KEY, ts {int} NOT NULL, uptime {int} NOT NULL, "
	"connected {int} NOT NULL, samples {int} NOT NULL, reachable {int} NOT NULL)",
	/* and the P-chain again: a RemoveSubnetValidatorTx now ends the validator it removes */
	"UPDATE cursors SET next = 0, last_id = NULL WHERE kind = 0",
	NULL,
};

/*
 * Version 6: the validators list (api/validators.c). Indexes only, so no chain is read again:
 * the validators (AddValidatorTx, AddSubnetValidatorTx, AddPermissionlessValidatorTx) in the
 * order the P-chain accepted them, without the delegators, which are most of the stakers; and
 * the stakers not ended yet (current and pending, validators and delegators: the network's
 * staking set now, a few thousand rows where the table holds every staker there ever was), by
 * node. Both are partial indexes, which SQLite and PostgreSQL alike use when a query's WHERE
 * repeats the index's.
 */
static const char *const v6[] = {
	"CREATE INDEX stakers_validators ON stakers (seq, tx) WHERE type IN (12, 13, 25)",
	"CREATE INDEX stakers_open ON stakers (node, start_ts) WHERE end_tx IS NULL",
	NULL,
};

/*
 * Version 7: the validator sets by P-chain height (index/vset.c; signature aggregation signs
 * with them). vset holds each node's weight and BLS key in a subnet (the primary network's
 * subnet id is 32 zero bytes) over a range of heights [from_h, to_h), to_h 2^63-1 while it
 * lasts: a change of weight closes the node's row and opens another. An L1's inactive
 * validators count together under the empty node id (20 zero bytes) without a key, as
 * avalanchego counts them; a permissioned subnet validator's key is its primary validation's
 * (NULL here: the reader joins). stakers.vin / vout: the heights a staker joined and left
 * its set (NULL: not yet). l1_txs.weight / balance / bal_change: an L1 validator tx's effect
 * (the P-chain txs' l1ValidatorDetails). Filled by reading the P-chain again, which rebuilds the
 * sets from the genesis validators on (index/vset.c).
 */
static const char *const v7[] = {
	"CREATE TABLE vset (subnet {blob} NOT NULL, node {blob} NOT NULL, from_h {int} NOT NULL, "
	"to_h {int} NOT NULL, weight {blob} NOT NULL, bls_key {blob}, PRIMARY KEY (subnet, node, from_h)) "
	"{without_rowid}",
	"CREATE INDEX vset_to ON vset (subnet, to_h)",
	"ALTER TABLE stakers ADD COLUMN vin {int}",
	"ALTER TABLE stakers ADD COLUMN vout {int}",
	/* the pending stakers a block's time may start, the permissioned ones it may end */
	"CREATE INDEX stakers_vpending ON stakers (start_ts) WHERE vin IS NULL",
	"CREATE INDEX stakers_vexpiring ON stakers (end_ts) WHERE type = 13 AND vout IS NULL",
	/* the staking set without the permissioned validators past their end, which no tx ends
	 * (vout marks them): the validators list reads it whole on every request */
	"DROP INDEX stakers_open",
	"CREATE INDEX stakers_open ON stakers (node, start_ts) WHERE end_tx IS NULL AND vout IS NULL",
	/* an address's staking txs alone (pending rewards), where its P-chain txs are mostly others */
	"CREATE INDEX addr_txs_staking ON addr_txs (chain, addr, seq) WHERE type IN (12, 14, 25, 26)",
	/* and what each L1 validator tx left of its validation: the weight and remaining balance after
	 * it (8-byte big-endian), and how much the tx moved into the balance (negative: refunded) */
	"ALTER TABLE l1_txs ADD COLUMN weight {blob}",
	"ALTER TABLE l1_txs ADD COLUMN balance {blob}",
	"ALTER TABLE l1_txs ADD COLUMN bal_change {int}",
	"UPDATE cursors SET next = 0, last_id = NULL WHERE kind = 0",
	NULL,
};

/*
 * Version 8: what the node's info.peers says of its validators, sampled with getCurrentValidators
 * (index/observe.c): the version each runs, and in how many of the samples it was benched on the
 * P-, X- and C-chain (a node the answer does not list counts as not benched; version NULL until a
 * sample lists it).
 */
static const char *const v8[] = {
	"ALTER TABLE node_obs ADD COLUMN version TEXT",
	"ALTER TABLE node_obs ADD COLUMN benched_p {int} NOT NULL DEFAULT 0",
	"ALTER TABLE node_obs ADD COLUMN benched_x {int} NOT NULL DEFAULT 0",
	"ALTER TABLE node_obs ADD COLUMN benched_c {int} NOT NULL DEFAULT 0",
	NULL,
};

/*
 * Version 9: the price table (store/prices.h): the price of the network's asset on a UTC day in a
 * currency, loaded from outside the chain (`snowline prices`), which the rewards list shows as
 * historicalPrice. Not chain data, so not in the canonical dump. day: the unix seconds of the day's
 * midnight UTC; currency: a CurrencyCode in lower case; price: a decimal as loaded (no floats).
 * loaded: the load that last wrote the row (1 + the largest before it), so max(loaded), read from
 * its index, names what the table holds for the API's response cache.
 */
static const char *const v9[] = {
	"CREATE TABLE prices (currency TEXT NOT NULL, day {int} NOT NULL, price TEXT NOT NULL, "
	"loaded {int} NOT NULL, PRIMARY KEY (currency, day)) {without_rowid}",
	"CREATE INDEX prices_loaded ON prices (loaded)",
	NULL,
};

/*
 * Version 10: EVM chains (part 3; docs/evm.md). Every EVM table is keyed by the chain's EVM chain
 * id (`evm`, an integer) first. Hashes are 32-byte blobs, addresses 20-byte blobs, and every
 * 256-bit quantity (value, gas price, token amount, token id, nonce of a message) a 32-byte
 * big-endian blob, so blob order is numeric order.
 *
 * evm_chains: what is configured (the indexer writes it when it starts; the API only reads it).
 *   blockchain/subnet: Avalanche ids (NULL when not known); token_*: the network token;
 *   icm: the ICM messenger's address (NULL: none is watched); network: "mainnet", "fuji" or
 *   "local" (the /v1/chains `network` filter); testnet: 0/1.
 * evm_cursors: per chain, the next block to read and the hash of the last one read, written in the
 *   transaction of the batch it follows (as `cursors` for the node's indexes); head: the node's
 *   latest block number as last asked; caught_up_ms: when the store last held all of it.
 * evm_blocks: a block's header fields the API serves.
 * evm_txs: a tx with its receipt, clustered by (block, index). to: NULL for a creation;
 *   created: the contract a creation made; status: the receipt's (1 success, 0 reverted).
 * evm_logs: every log, in (block, log index) order; topics: n × 32 bytes.
 * evm_transfers: the ERC-20/721/1155 transfers decoded from logs: std 20, 721 or 1155; sub: the
 *   item of an ERC-1155 TransferBatch (0 otherwise); token_id NULL for ERC-20.
 * evm_internal: the call frames under a tx's top frame (callTracer), in depth-first order (n);
 *   kind: CALL, STATICCALL, DELEGATECALL, CREATE, CREATE2, SELFDESTRUCT as the tracer names it;
 *   depth 1: called by the top frame; value NULL for DELEGATECALL (it moves nothing) and
 *   STATICCALL; reverted: the frame or one above it (the top one too) has an error.
 * evm_contracts: who created each contract: the outer tx (block, idx), and the frame's sender
 *   (the tx's sender for a creation tx); only creations that were not reverted.
 * evm_tokens: a token contract's standard and, where it answers, name, symbol and decimals
 *   (ERC-20 only), asked at the first block whose transfers show it.
 * evm_addr_txs: the txs an address took part in (sender, recipient, a transfer's side, an
 *   internal frame's side; never the zero address), for exports and address reads.
 * icm_messages: one row per message, written from whichever side is read first (source: the
 *   SendCrossChainMessage; destination: ReceiveCrossChainMessage and MessageExecuted/Failed);
 *   executed: NULL not yet known, 1 executed, 0 execution failed. receipt_delivered: the source
 *   saw ReceiptReceived for it. sender/recipient: originSenderAddress/destinationAddress;
 *   relayers: n × 20 bytes; receipts: n × 52 bytes (32-byte nonce ‖ 20-byte reward address);
 *   fee_amount: the total (after AddFeeAmount); src_gas/dst_gas: gasUsed × effectiveGasPrice.
 *   The source side's message columns win over the destination's. icm_addrs: a message by its
 *   sender and its recipient, newest first, at src_ts when the source is indexed, else dst_ts.
 * operations: export jobs (api/exports): the request as JSON, the state, the lease (owner and
 *   until when, unix ms) that makes one API instance run it, the result (CSV) when done, and its
 *   cap: the most lines its file may have, fixed by the API server that accepted the job, so
 *   that whichever server runs it makes the same file.
 */
static const char *const v10[] = {
	"CREATE TABLE evm_chains (evm {int} PRIMARY KEY, blockchain {blob}, subnet {blob}, name TEXT NOT NULL, "
	"description TEXT, rpc_url TEXT NOT NULL, ws_url TEXT, explorer_url TEXT, logo_uri TEXT, "
	"token_name TEXT NOT NULL, token_symbol TEXT NOT NULL, token_decimals {int} NOT NULL, token_logo TEXT, "
	"token_description TEXT, network TEXT NOT NULL, testnet {int} NOT NULL, icm {blob})",
	"CREATE UNIQUE INDEX evm_chains_blockchain ON evm_chains (blockchain)",
	"CREATE TABLE evm_cursors (evm {int} PRIMARY KEY, next {int} NOT NULL, last_hash {blob}, head {int}, "
	"caught_up_ms {int})",
	"CREATE TABLE evm_blocks (evm {int} NOT NULL, number {int} NOT NULL, hash {blob} NOT NULL, "
	"parent {blob} NOT NULL, ts {int} NOT NULL, miner {blob} NOT NULL, gas_limit {int} NOT NULL, "
	"gas_used {int} NOT NULL, base_fee {blob}, ntx {int} NOT NULL, size {int} NOT NULL, "
	"PRIMARY KEY (evm, number)) {without_rowid}",
	"CREATE INDEX evm_blocks_hash ON evm_blocks (hash)",
	"CREATE TABLE evm_txs (evm {int} NOT NULL, block {int} NOT NULL, idx {int} NOT NULL, hash {blob} NOT NULL, "
	"ts {int} NOT NULL, sender {blob} NOT NULL, recipient {blob}, value {blob} NOT NULL, nonce {int} NOT NULL, "
	"type {int} NOT NULL, gas_limit {int} NOT NULL, gas_price {blob}, max_fee {blob}, max_prio {blob}, "
	"input {blob} NOT NULL, status {int} NOT NULL, gas_used {int} NOT NULL, effective_price {blob} NOT NULL, "
	"created {blob}, PRIMARY KEY (evm, block, idx)) {without_rowid}",
	"CREATE UNIQUE INDEX evm_txs_hash ON evm_txs (hash, evm)",
	"CREATE TABLE evm_logs (evm {int} NOT NULL, block {int} NOT NULL, log_idx {int} NOT NULL, "
	"tx_idx {int} NOT NULL, address {blob} NOT NULL, topics {blob} NOT NULL, data {blob} NOT NULL, "
	"PRIMARY KEY (evm, block, log_idx)) {without_rowid}",
	"CREATE TABLE evm_transfers (evm {int} NOT NULL, block {int} NOT NULL, log_idx {int} NOT NULL, "
	"sub {int} NOT NULL, tx_idx {int} NOT NULL, token {blob} NOT NULL, std {int} NOT NULL, "
	"sender {blob} NOT NULL, recipient {blob} NOT NULL, token_id {blob}, value {blob} NOT NULL, "
	"PRIMARY KEY (evm, block, log_idx, sub)) {without_rowid}",
	"CREATE TABLE evm_internal (evm {int} NOT NULL, block {int} NOT NULL, tx_idx {int} NOT NULL, n {int} NOT NULL, "
	"depth {int} NOT NULL, kind TEXT NOT NULL, sender {blob} NOT NULL, recipient {blob}, value {blob}, "
	"gas {int} NOT NULL, gas_used {int} NOT NULL, reverted {int} NOT NULL, "
	"PRIMARY KEY (evm, block, tx_idx, n)) {without_rowid}",
	"CREATE TABLE evm_contracts (evm {int} NOT NULL, address {blob} NOT NULL, block {int} NOT NULL, "
	"tx_idx {int} NOT NULL, creator {blob} NOT NULL, PRIMARY KEY (evm, address)) {without_rowid}",
	"CREATE TABLE evm_tokens (evm {int} NOT NULL, address {blob} NOT NULL, std {int} NOT NULL, name TEXT, "
	"symbol TEXT, decimals {int}, PRIMARY KEY (evm, address)) {without_rowid}",
	"CREATE TABLE evm_addr_txs (evm {int} NOT NULL, addr {blob} NOT NULL, block {int} NOT NULL, "
	"tx_idx {int} NOT NULL, PRIMARY KEY (evm, addr, block, tx_idx)) {without_rowid}",
	"CREATE TABLE icm_messages (id {blob} PRIMARY KEY, contract {blob} NOT NULL, src_blockchain {blob} NOT NULL, "
	"dst_blockchain {blob} NOT NULL, nonce {blob} NOT NULL, sender {blob}, recipient {blob}, "
	"gas_limit {blob}, relayers {blob}, receipts {blob}, data {blob}, fee_token {blob}, fee_amount {blob}, "
	"src_evm {int}, src_tx {blob}, src_block {int}, src_ts {int}, src_gas {blob}, "
	"dst_evm {int}, dst_tx {blob}, dst_block {int}, dst_ts {int}, dst_gas {blob}, deliverer {blob}, "
	"redeemer {blob}, executed {int}, receipt_delivered {int} NOT NULL DEFAULT 0)",
	/* a tx's ICM messages (api/deployment.c: teleporterMessageInfo), partial: a message seen
	 * from one side only has NULL on the other */
	"CREATE INDEX icm_messages_src_tx ON icm_messages (src_tx) WHERE src_tx IS NOT NULL",
	"CREATE INDEX icm_messages_dst_tx ON icm_messages (dst_tx) WHERE dst_tx IS NOT NULL",
	"CREATE TABLE icm_addrs (addr {blob} NOT NULL, ts {int} NOT NULL, id {blob} NOT NULL, "
	"PRIMARY KEY (addr, ts, id)) {without_rowid}",
	"CREATE TABLE operations (id TEXT PRIMARY KEY, type TEXT NOT NULL, request TEXT NOT NULL, "
	"status TEXT NOT NULL, message TEXT, code TEXT, next_date TEXT, created_ms {int} NOT NULL, "
	"updated_ms {int} NOT NULL, lease_owner TEXT, lease_until {int}, rows {int}, result {blob}, max_rows {int})",
	"CREATE INDEX operations_status ON operations (status, created_ms)",
	NULL,
};

/*
 * Version 11: UTXOs keyed by where their tx is, not by their hash. A UTXO's id is a hash, so
 * `utxos` keyed by it took every new UTXO and every spend at a random place in a table of
 * millions of rows: once the table outgrew the writer's cache, each batch rewrote most of its
 * pages (the indexer slowed from ~10k to ~3k txs/s by 2M txs). Now its key is (chain, pos, id):
 * the chain and the seq of the tx its id names (its txID), 0 for a genesis UTXO (whose txID names
 * no tx of the store) — so a tx's outputs are appended together, the outputs of a staking tx
 * (its stake, and the rewards its RewardValidatorTx pays, whose txID is the staking tx's) sit
 * with it, and a spend, which names its UTXO by txID and index, finds the row through txs_id. A
 * spend applied before its UTXO is made (another index is behind) waits in early_spends, keyed
 * by the UTXO's id, until the creation takes it. addr_utxos' index by id goes: a spend updates
 * an owner's row by its key (the writer knows its owners and time from the UTXO).
 */
static const char *const v11[] = {
	"CREATE TABLE utxos_v11 (chain {int} NOT NULL, pos {int} NOT NULL, id {blob} NOT NULL, tx {blob}, "
	"idx {int}, dest {int}, asset {blob}, amount {blob}, otype {int}, locktime {int}, stake_lock {int}, "
	"threshold {int}, addrs {blob}, group_id {int}, payload {blob}, staked {int}, stake_start {int}, "
	"stake_end {int}, reward {int}, height {int}, block {blob}, ts {int}, seq {int}, unstaked {int}, "
	"ctx {blob}, cchain {int}, cheight {int}, cblock {blob}, cts {int}, cseq {int}, cin {int}, ctype {int}, "
	"PRIMARY KEY (chain, pos, id)) {without_rowid}",
	"INSERT INTO utxos_v11 (chain, pos, id, tx, idx, dest, asset, amount, otype, locktime, stake_lock, "
	"threshold, addrs, group_id, payload, staked, stake_start, stake_end, reward, height, block, ts, seq, "
	"unstaked, ctx, cchain, cheight, cblock, cts, cseq, cin, ctype) "
	"SELECT u.chain, COALESCE(t.seq, 0), u.id, u.tx, u.idx, u.dest, u.asset, u.amount, u.otype, u.locktime, "
	"u.stake_lock, u.threshold, u.addrs, u.group_id, u.payload, u.staked, u.stake_start, u.stake_end, u.reward, "
	"u.height, u.block, u.ts, u.seq, u.unstaked, u.ctx, u.cchain, u.cheight, u.cblock, u.cts, u.cseq, u.cin, "
	"u.ctype FROM utxos u LEFT JOIN txs t ON t.id = u.tx AND t.chain = u.chain WHERE u.tx IS NOT NULL",
	"CREATE TABLE early_spends (id {blob} PRIMARY KEY, ctx {blob} NOT NULL, cchain {int} NOT NULL, "
	"cheight {int}, cblock {blob}, cts {int} NOT NULL, cseq {int} NOT NULL, cin {int} NOT NULL, "
	"ctype {int} NOT NULL) {without_rowid}",
	"INSERT INTO early_spends (id, ctx, cchain, cheight, cblock, cts, cseq, cin, ctype) "
	"SELECT id, ctx, cchain, cheight, cblock, cts, cseq, cin, ctype FROM utxos WHERE tx IS NULL",
	"DROP TABLE utxos",
	"ALTER TABLE utxos_v11 RENAME TO utxos",
	"DROP INDEX addr_utxos_id",
	NULL,
};

/*
 * The indexes a bulk catch-up builds at its end (sql.h): an address's UTXOs by amount, all of
 * them and the unspent ones. Each holds an address's rows in amount order, so every new UTXO
 * lands at a random place of a B-tree as big as the UTXO set: row by row they were about a third
 * of the indexer's time on a store of millions of UTXOs (most of it rewriting pages at each
 * commit), and built from the table each costs one sort. The DDL is the same as their migrations'.
 */
static const struct {
	const char *name, *create;
} deferred[] = {
	{ "addr_utxos_amount",
	  "CREATE INDEX IF NOT EXISTS addr_utxos_amount ON addr_utxos (chain, addr, amount, id)" },
	{ "addr_utxos_unspent_amount", "CREATE INDEX IF NOT EXISTS addr_utxos_unspent_amount ON addr_utxos "
				       "(chain, addr, amount, id) WHERE cts IS NULL" },
};
const char *const sl_deferred_index_names[] = { "addr_utxos_amount", "addr_utxos_unspent_amount", NULL };

static const sl_sql q_deferred_put = { "INSERT INTO meta (key, value) VALUES ('deferred_indexes', ?) "
				       "ON CONFLICT (key) DO NOTHING" };
static const sl_sql q_deferred_del = { "DELETE FROM meta WHERE key = 'deferred_indexes'" };
static const sl_sql q_deferred_get = { "SELECT count(*) FROM meta WHERE key = 'deferred_indexes'" };

static sl_err in_tx(sl_conn *c, bool build)
{
	sl_err e = sl_conn_begin(c);
	char sql[256];
	for (size_t i = 0; !e && i < SL_ARRAY_LEN(deferred); i++) {
		if (!build)
			snprintf(sql, sizeof sql, "DROP INDEX IF EXISTS %s", deferred[i].name);
		e = sl_conn_exec_raw(c, build ? deferred[i].create : sql);
	}
	if (!e) {
		static const uint8_t one[1] = { 1 };
		sl_stmt *s = sl_stmt_get(c, build ? &q_deferred_del : &q_deferred_put);
		if (!s)
			e = SL_ERR_STORE;
		else {
			if (!build)
				sl_bind_blob(s, 0, one, 1);
			e = sl_stmt_exec(s);
		}
	}
	if (!e)
		return sl_conn_commit(c);
	sl_conn_rollback(c);
	return e;
}

sl_err sl_store_defer_indexes(sl_conn *c) { return in_tx(c, false); }
sl_err sl_store_build_indexes(sl_conn *c) { return in_tx(c, true); }

sl_err sl_store_indexes_deferred(sl_conn *c, bool *yes)
{
	*yes = false;
	SL_STMT(c, q_deferred_get);
	sl_err e = sl_stmt_query(s);
	if (!e && sl_stmt_next(s, &e))
		*yes = sl_col_i64(s, 0) > 0;
	while (!e && sl_stmt_next(s, &e))
		;
	return e;
}

const sl_migration sl_migrations[] = {
	{ 1, v1 }, { 2, v2 }, { 3, v3 }, { 4, v4 },   { 5, v5 },   { 6, v6 },
	{ 7, v7 }, { 8, v8 }, { 9, v9 }, { 10, v10 }, { 11, v11 },
};
const size_t sl_nmigrations = SL_ARRAY_LEN(sl_migrations);

void sl_sql_ddl(const char *ddl, const char *backend, sl_buf *out)
{
	bool pg = !strcmp(backend, "postgres");
	static const struct {
		const char *token, *sqlite, *pg;
	} tokens[] = {
		{ "{blob}", "BLOB", "BYTEA" },
		{ "{int}", "INTEGER", "BIGINT" },
		{ "{without_rowid}", "WITHOUT ROWID", "" },
	};
	for (const char *p = ddl; *p;) {
		/* {sqlite:TEXT}: TEXT for SQLite only (a planner hint PostgreSQL's statistics make
		 * unneeded, e.g. INDEXED BY) */
		if (!strncmp(p, "{sqlite:", 8)) {
			const char *end = strchr(p, '}');
			if (end) {
				if (!pg)
					sl_buf_add(out, p + 8, (size_t)(end - p - 8));
				p = end + 1;
				continue;
			}
		}
		bool done = false;
		for (size_t i = 0; i < SL_ARRAY_LEN(tokens) && !done; i++) {
			size_t n = strlen(tokens[i].token);
			if (!strncmp(p, tokens[i].token, n)) {
				sl_buf_adds(out, pg ? tokens[i].pg : tokens[i].sqlite);
				p += n;
				done = true;
			}
		}
		if (!done)
			sl_buf_addc(out, *p++);
	}
}

static const sl_sql q_version = { "SELECT version FROM schema_version" };
static const sl_sql q_set_version = { "UPDATE schema_version SET version = ?" };

static sl_err read_version(sl_conn *c, int *version)
{
	*version = 0;
	sl_stmt *s = sl_stmt_get(c, &q_version);
	if (!s)
		return SL_ERR_STORE;
	sl_err e = sl_stmt_query(s);
	/* read to the end: a query left mid-way keeps its snapshot (SQLite: a read transaction), and
	 * sl_db_open puts this connection into the pool as it is */
	while (!e && sl_stmt_next(s, &e))
		*version = (int)sl_col_i64(s, 0);
	return e;
}

sl_err sl_schema_apply(sl_conn *c, sl_db_mode mode, int upto, int *version)
{
	if (upto <= 0 || upto > SL_SCHEMA_VERSION)
		upto = SL_SCHEMA_VERSION;
	const char *be = sl_conn_backend(c);
	if (mode != SL_DB_WRITE) {
		/* A reader (or a loader of prices) needs the schema this build knows; the indexer makes it. */
		if (read_version(c, version))
			return sl_conn_fail(c, SL_ERR_NOT_FOUND,
					    "the store has no snowline schema yet (%s): start "
					    "`snowline index` on it first",
					    c->error);
		if (*version != SL_SCHEMA_VERSION)
			return sl_conn_fail(
				c, SL_ERR_UNSUPPORTED,
				"the store's schema is version %d; this snowline reads version %d", *version,
				SL_SCHEMA_VERSION);
		return SL_OK;
	}
	sl_err e = sl_conn_begin(c);
	if (e)
		return e;
	e = sl_conn_exec_raw(c, "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)");
	if (!e)
		e = read_version(c, version);
	if (!e && *version == 0)
		e = sl_conn_exec_raw(c, "INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS "
					"(SELECT 1 FROM schema_version)");
	if (!e && *version > SL_SCHEMA_VERSION)
		e = sl_conn_fail(
			c, SL_ERR_UNSUPPORTED,
			"the store's schema is version %d, newer than this snowline's %d: upgrade snowline",
			*version, SL_SCHEMA_VERSION);
	sl_buf ddl;
	sl_buf_init(&ddl, 1u << 16);
	for (size_t m = 0; !e && m < sl_nmigrations; m++) {
		if (sl_migrations[m].version <= *version || sl_migrations[m].version > upto)
			continue;
		for (const char *const *d = sl_migrations[m].ddl; !e && *d; d++) {
			sl_buf_reset(&ddl);
			sl_sql_ddl(*d, be, &ddl);
			e = ddl.err ? SL_ERR_TOO_LARGE : sl_conn_exec_raw(c, sl_buf_str(&ddl));
		}
		if (!e) {
			sl_stmt *s = sl_stmt_get(c, &q_set_version);
			if (!s)
				e = SL_ERR_STORE;
			else {
				sl_bind_i64(s, 0, sl_migrations[m].version);
				e = sl_stmt_exec(s);
			}
		}
		if (!e)
			*version = sl_migrations[m].version;
	}
	sl_buf_release(&ddl);
	if (e) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s", c->error);
		sl_conn_rollback(c);
		return sl_conn_fail(c, e, "schema: %s", msg);
	}
	return sl_conn_commit(c);
}

// evm-index-pg.test.mjs — evm-index.test.mjs, every case of it, on a PostgreSQL store (a
// database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_EVM_BACKEND = 'postgres';
await import('./evm-index.test.mjs');

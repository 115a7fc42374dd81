// dataapi-evm-pg.test.mjs — dataapi-evm.test.mjs, every case of it, on a PostgreSQL store (a
// database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_EVM_API_BACKEND = 'postgres';
await import('./dataapi-evm.test.mjs');

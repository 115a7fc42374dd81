// exports-evm-pg.test.mjs — exports-evm.test.mjs, every case of it, on a PostgreSQL store (a
// database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_EXPORTS_BACKEND = 'postgres';
await import('./exports-evm.test.mjs');

// sigagg-p2p-pg.test.mjs — sigagg-p2p.test.mjs, every case of it, on a PostgreSQL store (a database on
// the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_SIGAGG_BACKEND = 'postgres';
await import('./sigagg-p2p.test.mjs');

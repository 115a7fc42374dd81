// dataapi-pending-pg.test.mjs — dataapi-pending.test.mjs, every case of it, on a PostgreSQL store
// (a database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_PENDING_BACKEND = 'postgres';
await import('./dataapi-pending.test.mjs');

// dataapi-validators-pg.test.mjs — dataapi-validators.test.mjs, every case of it, on a PostgreSQL store
// (a database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_VALIDATORS_BACKEND = 'postgres';
await import('./dataapi-validators.test.mjs');

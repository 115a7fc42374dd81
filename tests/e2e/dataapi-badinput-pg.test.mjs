// dataapi-badinput-pg.test.mjs — dataapi-badinput.test.mjs, every case of it, on a PostgreSQL store
// (a database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_BADINPUT_BACKEND = 'postgres';
await import('./dataapi-badinput.test.mjs');

// vset-pg.test.mjs — vset.test.mjs, every case of it, on a PostgreSQL store (a database on the server
// tests/run.sh starts): both backends keep the same validator sets.
process.env.SNOWLINE_VSET_BACKEND = 'postgres';
await import('./vset.test.mjs');

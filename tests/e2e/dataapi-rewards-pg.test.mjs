// dataapi-rewards-pg.test.mjs — dataapi-rewards.test.mjs, every case of it, on a PostgreSQL store
// (a database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_REWARDS_BACKEND = 'postgres';
await import('./dataapi-rewards.test.mjs');

// dataapi-sdk-pg.test.mjs — dataapi-sdk.test.mjs, every call and check of it, on a PostgreSQL store
// (a database on the server tests/run.sh starts): both backends pass the same suite.
process.env.SNOWLINE_SDK_BACKEND = 'postgres';
await import('./dataapi-sdk.test.mjs');

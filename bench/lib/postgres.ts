import pg from "pg";

/**
 * The PostgreSQL URL a benchmark uses, or why there is none: FLAGPOST_BENCH_PG_URL, else
 * FLAGPOST_TEST_PG_URL, else (outside smoke runs) the local default; checked with one query.
 */
export async function postgresUrl(smoke: boolean): Promise<{ url?: string; why?: string }> {
  const url =
    process.env.FLAGPOST_BENCH_PG_URL ??
    process.env.FLAGPOST_TEST_PG_URL ??
    (smoke ? undefined : "postgres://postgres@127.0.0.1:5432/test");
  if (!url) return { why: "set FLAGPOST_TEST_PG_URL (or FLAGPOST_BENCH_PG_URL) to include PostgreSQL" };
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return { url };
  } catch (error) {
    return { why: `PostgreSQL at ${url.replace(/\/\/[^@]*@/, "//…@")} did not answer (${(error as Error).message})` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

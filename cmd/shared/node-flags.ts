/**
 * How the components' Node processes are started: catalogd's settings (config/manager/catalogd.yaml
 * passes both; test/unit/node-flags.test.ts checks), which operator-controller shares
 * (cmd/operator-controller/node-flags.ts). The benchmarks start their stand-ins the same way.
 */

/**
 * Node flags. A 1 MB young generation: catalogd's work (pulls, HTTP responses) allocates many
 * short-lived buffers, and V8's default 16 MB semi-spaces keep tens of MB resident. Together
 * with ingest in a separate process (decision 0082) this keeps steady memory low; the price is
 * /metas throughput under saturation (more young-generation collections), which decision 0082
 * weighs.
 */
export const CATALOGD_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/**
 * Environment. glibc's allocator otherwise keeps what serving frees: one arena per thread that
 * ever allocated (libuv's pool, V8's compiler threads), and a dynamic mmap threshold that,
 * once a 256 KiB read buffer has been freed, serves later large blocks from the heap where
 * fragmentation pins them. Two arenas, a fixed 32 KiB mmap threshold and trimming above 32 KiB
 * free at the top lower steady RSS at the same request throughput (decision 0082). The
 * ingest child runs with its own (INGEST_CHILD_ENVIRONMENT).
 */
export const CATALOGD_ENVIRONMENT: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=32768:glibc.malloc.trim_threshold=32768:glibc.malloc.top_pad=0',
};

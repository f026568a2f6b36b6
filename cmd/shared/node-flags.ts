/**
 * How the components' Node processes are started: catalogd's settings (config/manager/catalogd.yaml
 * passes both; test/unit/node-flags.test.ts checks), which operator-controller shares
 * (cmd/operator-controller/node-flags.ts). The benchmarks start their stand-ins the same way.
 */

/** A 1 MB young generation: V8's default semi-spaces keep tens of MB of short-lived buffers resident (decision 0082). */
export const CATALOGD_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/**
 * glibc's allocator otherwise keeps what serving frees (an arena per thread, a dynamic mmap
 * threshold): two arenas, a fixed 32 KiB threshold and trimming lower steady RSS (decision 0082).
 */
export const CATALOGD_ENVIRONMENT: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=32768:glibc.malloc.trim_threshold=32768:glibc.malloc.top_pad=0',
};

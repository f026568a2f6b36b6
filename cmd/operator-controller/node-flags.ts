/**
 * How operator-controller's Node process is started (its Deployment passes both; the
 * `extensions` benchmark starts it, and the library floor it is compared with, the same way).
 * The settings are catalogd's (cmd/shared/node-flags.ts, decision 0082) for the same reason:
 * reconciles allocate many short-lived buffers (release encoding, API responses), and V8's
 * default young-generation sizing and glibc's per-thread arenas keep much of that memory
 * resident after the reconciles that used it end.
 */
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../shared/node-flags.ts';

/**
 * Node flags of operator-controller: catalogd's, and V8's old generation set to 256 MB of the
 * container's 512 MiB (OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES), about what Node would take from
 * the limit, but fixed. The rest of the limit is not spare: with four hostile bundles upgraded
 * at once, memory outside V8's heap (large strings and Buffers of release records and API
 * bodies, 150-160 MB at its peak, plus ~80-110 MB of the binary's pages and native memory)
 * came on top of the heap, and with 320 MB the kernel killed the process in two of six runs
 * (bench `hostile` with OLMV1_BENCH_HOSTILE_MEMORY_TRACE, bench/results/bundle-memory.md,
 * decision 0098 item 8). The benchmark runs it in a memory cgroup of the limit and counts both
 * V8's and the kernel's kills. Raise both together.
 */
export const OPERATOR_CONTROLLER_NODE_FLAGS: readonly string[] = [...CATALOGD_NODE_FLAGS, '--max-old-space-size=256'];

/** Environment of operator-controller (glibc allocator settings). */
export const OPERATOR_CONTROLLER_ENVIRONMENT: Readonly<Record<string, string>> = CATALOGD_ENVIRONMENT;

/**
 * The memory limit of operator-controller's container (config/manager/operator-controller.yaml,
 * `resources.limits.memory`, a test checks). Node sizes V8's heap from the limit it finds at
 * start (~259 MB of heap for 512 MiB), so the `hostile` benchmark starts it under this limit.
 */
export const OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;

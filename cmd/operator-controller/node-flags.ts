/**
 * How operator-controller's Node process is started (its Deployment and the benchmarks pass
 * both): catalogd's settings (decision 0082), as its reconciles too allocate many short-lived
 * buffers that V8's default young generation and glibc's arenas would keep resident.
 */
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../shared/node-flags.ts';

/**
 * catalogd's flags, and V8's old generation at half the container's memory limit (Node reads
 * the cgroup's limit at start; the machine's memory where there is none): 256 MB of the shipped
 * 512 MiB, the other half for memory outside the heap under hostile bundles (a 320 MB heap got
 * the process killed: decision 0098 item 8, bench/results/bundle-memory.md). A fixed size would
 * not follow a raised limit: with 256 MB the heap ran out at ~3,000 extensions however much
 * memory the container had (bench/results/scale.md).
 */
export const OPERATOR_CONTROLLER_NODE_FLAGS: readonly string[] = [...CATALOGD_NODE_FLAGS, '--max-old-space-size-percentage=50'];

/** Environment of operator-controller (glibc allocator settings). */
export const OPERATOR_CONTROLLER_ENVIRONMENT: Readonly<Record<string, string>> = CATALOGD_ENVIRONMENT;

/** The memory limit of operator-controller's container (config/manager/operator-controller.yaml, a test checks). */
export const OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;

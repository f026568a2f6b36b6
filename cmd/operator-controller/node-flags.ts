/**
 * How operator-controller's Node process is started (its Deployment and the benchmarks pass
 * both): catalogd's settings (decision 0082), as its reconciles too allocate many short-lived
 * buffers that V8's default young generation and glibc's arenas would keep resident.
 */
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../shared/node-flags.ts';

/**
 * catalogd's flags, and V8's old generation fixed at 256 MB of the container's 512 MiB: the
 * rest is taken by memory outside the heap under hostile bundles (a 320 MB heap got the process
 * killed: decision 0098 item 8, bench/results/bundle-memory.md). Raise both together.
 */
export const OPERATOR_CONTROLLER_NODE_FLAGS: readonly string[] = [...CATALOGD_NODE_FLAGS, '--max-old-space-size=256'];

/** Environment of operator-controller (glibc allocator settings). */
export const OPERATOR_CONTROLLER_ENVIRONMENT: Readonly<Record<string, string>> = CATALOGD_ENVIRONMENT;

/** The memory limit of operator-controller's container (config/manager/operator-controller.yaml, a test checks). */
export const OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;

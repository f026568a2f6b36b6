/**
 * `node:http` for ES modules without the cost of its namespace.
 *
 * An ESM `import http from 'node:http'` (default or named) makes Node build the module's
 * namespace, which reads every export, including `WebSocket`, `CloseEvent` and
 * `MessageEvent`: lazy getters that load the bundled undici. That one import then costs a
 * process the memory of a second HTTP stack, which catalogd's 75 MB budget cannot carry
 * (decision 0082).
 * `process.getBuiltinModule` returns the CommonJS exports object without reading the getters.
 *
 * Every non-test module uses this instead of importing `node:http` for values; type-only
 * imports (`import type { Agent } from 'node:http'`) are erased and stay as they are. A test
 * (no-undici.test.ts) checks that the serving and control-plane modules never load undici.
 */
import type * as NodeHttp from 'node:http';

/** The `node:http` module object. */
export const http: typeof NodeHttp = process.getBuiltinModule('node:http');

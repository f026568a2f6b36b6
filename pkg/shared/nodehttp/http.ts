/**
 * `node:http` for ES modules without the cost of its namespace.
 *
 * An ESM `import http from 'node:http'` (default or named) makes Node build the module's
 * namespace, which reads every export, including `WebSocket`, `CloseEvent` and
 * `MessageEvent`: lazy getters that load the bundled undici (about 0.75 MB of source). On
 * Node 24 that one import costs a process about 14 MB of RSS (measured: 48.7 MB vs 62.3 MB
 * for an otherwise empty process), which catalogd's 75 MB budget cannot carry.
 * `process.getBuiltinModule` returns the CommonJS exports object without reading the getters.
 *
 * Every non-test module uses this instead of importing `node:http` for values; type-only
 * imports (`import type { Agent } from 'node:http'`) are erased and stay as they are. A test
 * (no-undici.test.ts) checks that the serving and control-plane modules never load undici.
 */
import type * as NodeHttp from 'node:http';

/** The `node:http` module object. */
export const http: typeof NodeHttp = process.getBuiltinModule('node:http');

/**
 * `node:http` without its ES module namespace, whose building reads the lazy getters that load
 * the bundled undici: a second HTTP stack catalogd's memory budget cannot carry (decision 0082).
 * Every non-test module takes `node:http` values from here (type-only imports are fine);
 * no-undici.test.ts checks that the serving and control-plane modules never load undici.
 */
import type * as NodeHttp from 'node:http';

/** The `node:http` module object. */
export const http: typeof NodeHttp = process.getBuiltinModule('node:http');

/** pkg/shared/pprof: `--pprof-bind-address`'s endpoint, the V8 inspector's CPU and heap profiles over HTTP (decision 0117). */
export { PprofServer } from './server.ts';

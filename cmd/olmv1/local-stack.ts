/**
 * `olmv1 local-stack`: the former name of `olmv1 up`, kept as an alias (see up.ts).
 */
export { runUp as runLocalStack } from './up.ts';

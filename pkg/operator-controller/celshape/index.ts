/**
 * pkg/operator-controller/celshape: the shape of a parsed CEL expression (nodes, comprehension
 * depth, widest literal, identifiers, unknown functions), for bounding hostile rules before
 * they run.
 */
export { celShape } from './shape.ts';

/**
 * The nesting limit of every decoder of this module. Go's allow 10,000 levels; Node's ~1 MB
 * stack holds roughly 1,600 nested YAML flow collections in the parser and 4,400 nested arrays
 * in JSON.stringify, so 1,000 leaves a margin (real files nest a few dozen). Deeper input fails
 * with Go's wording and this number instead of exhausting the stack (decision 0022).
 */
export const MAX_NESTING_DEPTH = 1000;

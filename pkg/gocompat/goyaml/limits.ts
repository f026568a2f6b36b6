/**
 * The nesting limit every decoder of this module applies. Go's decoders allow 10,000 levels
 * (encoding/json's scanner, go-yaml's flow and indentation stacks); ours is lower because the
 * YAML parser and V8's JSON.stringify recurse on Node's ~1 MB stack, which holds roughly 1,600
 * nested YAML flow collections and 4,400 nested arrays: at 1,000 the deepest value leaves them
 * and the recursive code after them (normalisation, rendering) a safe margin. Real catalogs and
 * manifests nest a few dozen levels. Deeper input fails with Go's own wording and this number
 * (`invalid character '[' exceeded max depth`, `yaml: exceeded max depth of 1000`) instead of
 * exhausting the stack. See docs/decisions/0022.
 */
export const MAX_NESTING_DEPTH = 1000;

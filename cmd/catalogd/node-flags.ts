/**
 * Node flags catalogd runs with (config/manager/catalogd.yaml passes them; a test checks).
 * A 1 MB young generation: catalogd's work (pulls, HTTP responses) allocates many short-lived
 * buffers, and V8's default 16 MB semi-spaces keep tens of MB resident for no gain in speed.
 * Together with ingest in a separate process (decision 0082) this keeps steady memory low.
 */
export const CATALOGD_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/**
 * Registry requests that timed out, named for people: which bound fired, what was being read
 * and from which registry (the HTTP layer only knows the URL; the registry client turns its
 * RequestTimeoutError into this error).
 */
import { findCause } from '../errors/index.ts';
import { goDuration } from '../../gocompat/gotext/index.ts';
import { RequestTimeoutError } from '../nodehttp/index.ts';

/** The bound that fired: connecting (TCP and TLS), or the read (inactivity) timeout. */
type RegistryTimeoutPhase = 'connect' | 'read';

/**
 * A registry request ended by a timeout: `timeout after 30s reading layer sha256:… from
 * registry 127.0.0.1:5001`, or `timeout after 10s connecting to registry quay.io to read
 * manifest v1`. Retryable (the registry may answer next time).
 */
export class RegistryTimeoutError extends Error {
  readonly phase: RegistryTimeoutPhase;
  readonly ms: number;
  /** `host[:port]` of the request that timed out (after redirects: the host that did not answer). */
  readonly registry: string;
  /** What was being read, e.g. `layer sha256:…`, `manifest v1`, `config sha256:…`, `token`. */
  readonly what: string;

  constructor(phase: RegistryTimeoutPhase, ms: number, registry: string, what: string, options?: { cause?: unknown }) {
    super(
      phase === 'connect'
        ? `timeout after ${goDuration(ms)} connecting to registry ${registry} to read ${what}`
        : `timeout after ${goDuration(ms)} reading ${what} from registry ${registry}`,
      options,
    );
    this.name = 'RegistryTimeoutError';
    this.phase = phase;
    this.ms = ms;
    this.registry = registry;
    this.what = what;
  }
}

/**
 * `err` as a RegistryTimeoutError reading `what`, when a request timeout is among its causes
 * (an already named one is returned as is); undefined for any other failure.
 */
function asRegistryTimeout(err: unknown, what: string): RegistryTimeoutError | undefined {
  const named = findCause(err, (e): e is RegistryTimeoutError => e instanceof RegistryTimeoutError);
  if (named !== undefined) return named;
  const t = findCause(err, (e): e is RequestTimeoutError => e instanceof RequestTimeoutError);
  if (t === undefined) return undefined;
  return new RegistryTimeoutError(t.phase === 'connect' ? 'connect' : 'read', t.ms, t.url.host, what, { cause: err });
}

/** Rethrows `err`, named as a timeout reading `what` when it is one. */
export function rethrowNamingTimeout(err: unknown, what: string): never {
  throw asRegistryTimeout(err, what) ?? err;
}

/**
 * `pulling image "<ref>": <timeout>` when a registry timeout is among `err`'s causes, so a pull's
 * error says it timed out, on what and where; undefined otherwise.
 */
export function pullTimeoutError(ref: string, err: unknown): Error | undefined {
  const t = findCause(err, (e): e is RegistryTimeoutError => e instanceof RegistryTimeoutError);
  return t === undefined ? undefined : new Error(`pulling image ${JSON.stringify(ref)}: ${t.message}`, { cause: err });
}

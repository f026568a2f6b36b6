/**
 * Trying an image's pull sources in order, as containers/image does: the first that serves the
 * manifest is used; a blocked one fails without being contacted.
 */
import type { Logger } from 'pino';
import { errorMessage } from '../errors/index.ts';
import { blockedMessage, type PullSource } from './registries-conf.ts';
import { formatReference } from './reference.ts';
import type { Repository } from './registry-client.ts';

/** A blocked pull source: `registry <prefix> is blocked in <file>`. Retryable: the file may change. */
export class RegistryBlockedError extends Error {
  constructor(blocked: NonNullable<PullSource['blocked']>) {
    super(blockedMessage(blocked));
    this.name = 'RegistryBlockedError';
  }
}

/** The repository a source names, with its `insecure` setting, for the registry client. */
function sourceRepository(source: PullSource): Repository {
  const { domain, path, name } = source.ref;
  return source.insecure ? { domain, path, name, insecure: true } : { domain, path, name };
}

/**
 * Runs `attempt` on each source in order until one succeeds.
 *
 * @throws with one source, its error unchanged; otherwise `(Mirrors also failed: [<ref>:
 *   <error>]...): <ref>: <error of the last source>` with that error as `cause`. An abort of
 *   `signal` ends the loop with its error.
 */
export async function trySources<T>(
  sources: readonly PullSource[],
  attempt: (repo: Repository) => Promise<T>,
  options: { signal?: AbortSignal | undefined; log?: Pick<Logger, 'debug'> | undefined } = {},
): Promise<{ value: T; repo: Repository; source: PullSource }> {
  const failures: Array<{ ref: string; err: unknown }> = [];
  for (const source of sources) {
    const ref = formatReference(source.ref);
    try {
      if (source.blocked !== undefined) throw new RegistryBlockedError(source.blocked);
      const repo = sourceRepository(source);
      const value = await attempt(repo);
      if (source.mirror) options.log?.debug({ source: ref }, 'reading image from mirror');
      return { value, repo, source };
    } catch (err) {
      if (options.signal?.aborted === true || sources.length === 1) throw err;
      options.log?.debug({ source: ref, err }, 'pull source failed');
      failures.push({ ref, err });
    }
  }
  const last = failures[failures.length - 1];
  if (last === undefined) throw new Error('no pull source to try');
  const mirrors = failures.slice(0, -1).map((f) => `[${f.ref}: ${errorMessage(f.err)}]`);
  throw new Error(`(Mirrors also failed: ${mirrors.join('\n')}): ${last.ref}: ${errorMessage(last.err)}`, { cause: last.err });
}

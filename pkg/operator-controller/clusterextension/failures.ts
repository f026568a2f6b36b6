/**
 * How a ClusterExtension step reports a failure: on the Progressing condition, and in upstream's
 * words for the resolved bundle it concerns.
 */
import { TerminalError, errorMessage, findTerminal } from '../../shared/errors/index.ts';
import type { ReleaseBundle } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { setProgressingError } from './status.ts';

/** Reports `err` on Progressing and rethrows it. */
export function fail(state: ExtensionState, err: unknown): never {
  setProgressingError(state.ce, err);
  throw err;
}

/** `error for resolved bundle "<name>" with version "<version>": <err>` (terminal-ness kept). */
export function forBundle(bundle: ReleaseBundle, err: unknown): Error {
  const message = `error for resolved bundle ${JSON.stringify(bundle.name)} with version ${JSON.stringify(bundle.version)}: ${errorMessage(err)}`;
  const terminal = findTerminal(err);
  return terminal === undefined ? new Error(message, { cause: err }) : new TerminalError(message, { reason: terminal.reason, cause: err });
}

/**
 * How a failed reconcile shows on a `Progressing` condition, as upstream's controllers report it
 * (decisions 0045 and 0063): a retried error is True/`Retrying`; a terminal one is False with its
 * reason (`Blocked` unless it carries another, e.g. `InvalidConfiguration`). The message is the
 * error text with network addresses removed (so retries through another ephemeral port do not
 * change it) and truncated to what the API accepts.
 */
import { errorMessage, findTerminal, sanitizeNetworkError } from '../errors/index.ts';
import { truncateConditionMessage, type ConditionStatus } from './conditions.ts';

/** Reason of a condition whose error will be retried. */
export const RETRYING_REASON = 'Retrying';

/** The status, reason and message an error gives a Progressing condition. */
interface ErrorCondition {
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** See the module comment. */
export function progressingFromError(err: unknown): ErrorCondition {
  const terminal = findTerminal(err);
  const message = truncateConditionMessage(sanitizeNetworkError(errorMessage(err)));
  if (terminal === undefined) return { status: 'True', reason: RETRYING_REASON, message };
  return { status: 'False', reason: terminal.reason, message };
}

export { TerminalError, errorMessage, findTerminal, isErrno, isTerminal, sanitizeNetworkError, wrapError } from './terminal.ts';
export { err, ok, type Result } from './result.ts';
export { findCause } from './cause-chain.ts';
export { jsonSyntaxProblem } from './json-syntax.ts';
export { LimitExceededError, isLimitExceeded } from './limit.ts';
export { settleAll } from './settle.ts';

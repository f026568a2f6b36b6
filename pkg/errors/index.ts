export { DEFAULT_TERMINAL_REASON, TerminalError, errorMessage, findTerminal, isTerminal, sanitizeNetworkError, wrapError } from './terminal.ts';
export { err, ok, type Result } from './result.ts';

/** pkg/shared/logchange: logging a recurring situation when it starts and when it changes, not on every pass. */
export { LogOnChange } from './log-on-change.ts';

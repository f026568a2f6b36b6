/** pkg/shared/poll: a bounded wait that tells its progress as it changes. */
export { pollUntilDone, type PollClock } from './poll.ts';

/** pkg/shared/bytes: byte buffers whose memory is returned at once (free.ts). */
export { freeOwnedBytes } from './free.ts';

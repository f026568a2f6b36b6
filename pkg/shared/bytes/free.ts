/**
 * Freeing byte buffers at once. Memory of an ArrayBuffer lies outside V8's heap and goes back
 * only when V8 collects the objects that view it, which for a large buffer whose bytes were
 * copied out (into a string, another buffer) can be long after its last use, beside the copy.
 * Detaching it (`transfer(0)`) returns the memory now. Only for bytes nobody else reads: every
 * view of a detached buffer reads as empty.
 */

/**
 * Detaches `bytes`' ArrayBuffer when `bytes` views all of it, and returns whether it did. A
 * view of part of a buffer (a slice of Node's pool of small Buffers, a subarray) is left to the
 * collector, as is a buffer detached already or a SharedArrayBuffer.
 */
export function freeOwnedBytes(bytes: Uint8Array): boolean {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength) return false;
  buffer.transfer(0);
  return true;
}

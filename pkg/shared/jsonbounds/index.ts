/**
 * Bounded JSON parsing for request bodies: a linear pre-scan of nesting depth and container count
 * (fed whole, or chunk by chunk as a body arrives) before JSON.parse, so a hostile body is refused
 * in milliseconds instead of blocking the process while V8 builds it (issue 60; decision 0113).
 * Pure: bytes in, verdict out.
 */
export { JsonBoundsScanner, type JsonBoundFailure, type JsonBounds } from './bounds-scanner.ts';

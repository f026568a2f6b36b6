/** pkg/shared/lines: lines of text kept by position, in memory or in a file (line-store.ts). */
export { LineStore, type LineList } from './line-store.ts';

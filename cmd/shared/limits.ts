/**
 * Size-limit flags shared by the components and the CLI: catalog decoding (pkg/shared/fbc
 * DecodeLimits) and image pulls (pkg/shared/image ImageLimits; each with its own defaults).
 */
import type { ParseArgsConfig } from 'node:util';
// The limits' file, not pkg/shared/fbc's index (the decoder): flag parsing stays light (decision 0097).
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from '../../pkg/shared/fbc/limits.ts';
import type { ImageLimits } from '../../pkg/shared/image/index.ts';
import { parseByteSize } from './flags.ts';

/** The `parseArgs` options of the decode limits. */
export const DECODE_LIMIT_FLAGS = {
  'max-catalog-bytes': { type: 'string' },
  'max-document-bytes': { type: 'string' },
  'max-string-bytes': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** The decode limits from parsed flag values (defaults for absent ones); throws on bad sizes. */
export function decodeLimitOptions(values: { [K in keyof typeof DECODE_LIMIT_FLAGS]?: string | undefined }): DecodeLimits {
  const size = (flag: keyof typeof DECODE_LIMIT_FLAGS, fallback: number): number => {
    const v = values[flag];
    return v === undefined ? fallback : parseByteSize(`--${flag}`, v);
  };
  return {
    maxCatalogBytes: size('max-catalog-bytes', DEFAULT_DECODE_LIMITS.maxCatalogBytes),
    maxDocumentBytes: size('max-document-bytes', DEFAULT_DECODE_LIMITS.maxDocumentBytes),
    maxStringBytes: size('max-string-bytes', DEFAULT_DECODE_LIMITS.maxStringBytes),
  };
}

/** Help lines of the decode limit flags, their descriptions indented by `column` characters. */
export function decodeLimitHelp(column: number): string {
  const line = (flag: string, text: string): string => helpLine(column, flag, text);
  return (
    line('--max-catalog-bytes SIZE', `largest catalog, all files together (default ${mib(DEFAULT_DECODE_LIMITS.maxCatalogBytes)})`) +
    line('--max-document-bytes SIZE', `largest document of a catalog (default ${mib(DEFAULT_DECODE_LIMITS.maxDocumentBytes)})`) +
    line('--max-string-bytes SIZE', `longest string in a document (default ${mib(DEFAULT_DECODE_LIMITS.maxStringBytes)})`)
  );
}

/** The `parseArgs` options of the image caps. */
export const IMAGE_LIMIT_FLAGS = {
  'max-image-decompressed-bytes': { type: 'string' },
  'max-image-unpacked-bytes': { type: 'string' },
  'max-image-files': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** The image caps from parsed flag values over `defaults`; throws on bad values. */
export function imageLimitOptions(values: { [K in keyof typeof IMAGE_LIMIT_FLAGS]?: string | undefined }, defaults: ImageLimits): ImageLimits {
  const size = (flag: keyof typeof IMAGE_LIMIT_FLAGS, fallback: number): number => {
    const v = values[flag];
    return v === undefined ? fallback : parseByteSize(`--${flag}`, v);
  };
  const files = values['max-image-files'];
  return {
    maxDecompressedBytes: size('max-image-decompressed-bytes', defaults.maxDecompressedBytes),
    maxUnpackedBytes: size('max-image-unpacked-bytes', defaults.maxUnpackedBytes),
    maxFiles: files === undefined ? defaults.maxFiles : parseCount('--max-image-files', files),
  };
}

/** Help lines of the image cap flags with `defaults`, descriptions indented by `column` characters. */
export function imageLimitHelp(column: number, defaults: ImageLimits): string {
  const line = (flag: string, text: string): string => helpLine(column, flag, text);
  return (
    line('--max-image-decompressed-bytes SIZE', `bytes an image's layers may decompress to (default ${mib(defaults.maxDecompressedBytes)})`) +
    line('--max-image-unpacked-bytes SIZE', `bytes of the files unpacked from an image (default ${mib(defaults.maxUnpackedBytes)})`) +
    line('--max-image-files N', `files, directories and links unpacked from an image (default ${defaults.maxFiles})`)
  );
}

// `  FLAG   text`, the text at `column`; a flag too long for that gets the text on the next line.
function helpLine(column: number, flag: string, text: string): string {
  const lead = `  ${flag}`;
  return lead.length < column ? `${lead.padEnd(column)}${text}\n` : `${lead}\n${' '.repeat(column)}${text}\n`;
}

function parseCount(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new Error(`invalid ${flag} ${JSON.stringify(value)} (want a positive integer)`);
  return n;
}

/** A size for help texts: `16Mi` when it is a whole number of MiB, else bytes. */
function mib(bytes: number): string {
  if (bytes % 2 ** 30 === 0) return `${bytes / 2 ** 30}Gi`;
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20}Mi` : String(bytes);
}

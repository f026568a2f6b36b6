/**
 * The loader's error: unlike upstream's LoadFS errors it names the file (relative to the catalog
 * root) and the document's 1-based start line, keeping upstream's exact text in `detail`.
 */

/** A document (or file) of a catalog that could not be decoded. */
export class FbcLoadError extends Error {
  /** Path relative to the catalog root ('/' separated), or '' for an anonymous stream. */
  readonly file: string;
  /** 1-based line where the failing document starts; undefined when not tied to a document. */
  readonly line: number | undefined;
  /** Upstream's error text, without our location prefix. */
  readonly detail: string;

  /**
   * `located`, when given, is what the message shows instead of `line` and `detail`: a YAML
   * error in the file's line numbering (see pkg/gocompat/goyaml file-lines.ts); `line` and `detail`
   * stay the document's start line and upstream's text.
   */
  constructor(
    detail: string,
    location: { file?: string; line?: number; located?: { text: string; line: number } } = {},
    options?: { cause?: unknown },
  ) {
    const shown = location.located;
    super(formatLocation(location.file ?? '', shown?.line ?? location.line) + (shown?.text ?? detail), options);
    this.name = 'FbcLoadError';
    this.file = location.file ?? '';
    this.line = location.line;
    this.detail = detail;
  }
}

function formatLocation(file: string, line: number | undefined): string {
  if (file === '' && line === undefined) return '';
  if (file === '') return `line ${line}: `;
  return line === undefined ? `${file}: ` : `${file}:${line}: `;
}

/**
 * Line numbers of YAML errors in multi-document files: go-yaml numbers lines from the start of
 * each document. Messages we show name the file's line and the document instead
 * (`yaml: line 12 (document 3): ...`); texts that must match upstream verbatim
 * (`decodeYamlOrJson`, `FbcLoadError.detail`) keep go-yaml's numbering (decision 0094).
 */

/** Where a YAML document sits in its file. */
export interface DocumentPosition {
  /** 1-based index of the document among the file's YAML documents. */
  index: number;
  /** 1-based file line of the document's first line (after its `---` separator). */
  firstLine: number;
}

/** Upstream's text rewritten to the file's numbering, and the file line it names (if any). */
interface FileNumberedError {
  text: string;
  line: number | undefined;
}

const YAML_LINE = /yaml: line (\d+):/;

/**
 * Rewrites the first `yaml: line N:` of `detail` into the file's numbering with the document
 * index (unchanged for a document on the file's first line, or without a line number).
 */
export function inFileNumbering(detail: string, at: DocumentPosition): FileNumberedError {
  const m = YAML_LINE.exec(detail);
  if (m === null) return { text: detail, line: undefined };
  const line = Number(m[1]) + at.firstLine - 1;
  if (at.firstLine === 1) return { text: detail, line };
  const text = `${detail.slice(0, m.index)}yaml: line ${line} (document ${at.index}):${detail.slice(m.index + m[0].length)}`;
  return { text, line };
}

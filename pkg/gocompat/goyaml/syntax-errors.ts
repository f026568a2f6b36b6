/**
 * go-yaml's wording for the YAML syntax errors js-yaml detects (both refuse the same documents):
 * the common cases get libyaml's problem text and go-yaml's line rule: scanner problems
 * `line N+1` for 0-based line N > 0, parser problems `line N`, none on line 0, and a parser
 * problem at an unterminated end on line "number of lines". Anything else keeps js-yaml's
 * reason with the scanner rule (decision 0022).
 */
import type { YAMLException } from 'js-yaml';
import { endState } from './indent-repair.ts';
import { MAX_NESTING_DEPTH } from './limits.ts';

/** The `yaml: ...` text go-yaml gives for the document js-yaml refused with `err`. */
export function goYamlSyntaxError(text: string, err: unknown): string {
  // js-yaml's recursive parser ran out of stack: its depth limit (limits.ts) should prevent it.
  if (err instanceof RangeError) return 'yaml: document nested too deeply for this decoder';
  if (!isYamlException(err)) return `yaml: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
  const reason = err.reason;
  const line = err.mark?.line ?? 0;
  const pos = err.mark?.position ?? 0;
  const at = text[pos] ?? '';
  const scanner = (problem: string, l = line): string => `yaml: ${l === 0 ? '' : `line ${l + 1}: `}${problem}`;
  const parser = (problem: string, l = line): string => `yaml: ${l === 0 ? '' : `line ${l}: `}${problem}`;
  const eofLine = countNewlines(text);
  if (reason === 'deficient indentation' || reason.startsWith('unexpected end of the stream')) {
    const end = endState(text);
    if (end.quote) return scanner('found unexpected end of stream', eofLine);
    const inner = end.flow.at(-1);
    if (inner !== undefined) {
      const bumped = eofLine + (text.length > 0 && !text.endsWith('\n') ? 1 : 0);
      return parser(end.expectingNode ? 'did not find expected node content' : `did not find expected ',' or '${inner === '[' ? ']' : '}'}'`, bumped);
    }
  }
  if (reason === 'bad indentation of a mapping entry') {
    if (at === ':') return scanner('mapping values are not allowed in this context');
    if (at === '-') return scanner('block sequence entries are not allowed in this context');
    if (at === '@' || at === '`') return scanner('found character that cannot start any token');
    if (at === ']' || at === '}')
      return parser(previousToken(text, pos) === ':' ? 'did not find expected node content' : 'did not find expected key');
    return parser(inSequence(text, line) ? "did not find expected '-' indicator" : 'did not find expected key');
  }
  if (reason === 'end of the stream or a document separator is expected') {
    return parser(topLevelSequence(text) ? "did not find expected '-' indicator" : 'did not find expected key');
  }
  if (reason === 'tab characters must not be used in indentation') {
    const before = previousContentLine(text, line);
    const plainValue = before !== undefined && !/:\s*$/.test(before) && !/^\s*-\s*$/.test(before);
    return scanner(plainValue ? 'found a tab character that violates indentation' : 'found character that cannot start any token');
  }
  if (reason.includes('a multiline key may not be an implicit key')) return scanner("could not find expected ':'");
  if (reason.startsWith('undeclared tag handle')) return parser('found undefined tag handle');
  if (reason.startsWith('expected the node content')) return parser('did not find expected node content');
  // js-yaml's maxDepth: go-yaml's scanner text for its own limit, with ours.
  if (reason.startsWith('nesting exceeded maxDepth')) return scanner(`exceeded max depth of ${MAX_NESTING_DEPTH}`);
  return scanner(reason);
}

function isYamlException(err: unknown): err is YAMLException {
  return err instanceof Error && 'reason' in err && typeof err.reason === 'string';
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function previousToken(text: string, pos: number): string {
  let i = pos - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  return text[i] ?? '';
}

function lines(text: string): string[] {
  return text.split('\n');
}

function isContent(line: string): boolean {
  const t = line.trim();
  return t !== '' && !t.startsWith('#');
}

function previousContentLine(text: string, line: number): string | undefined {
  const all = lines(text);
  for (let n = line - 1; n >= 0; n--) if (isContent(all[n] as string)) return all[n];
  return undefined;
}

// Is the refused line inside a block sequence (the content line above it is an item)?
function inSequence(text: string, line: number): boolean {
  const before = previousContentLine(text, line);
  return before !== undefined && /^\s*- /.test(before);
}

function topLevelSequence(text: string): boolean {
  const first = lines(text).find((l) => isContent(l) && !l.startsWith('%') && !l.startsWith('---'));
  return first !== undefined && /^-(?:\s|$)/.test(first);
}

/**
 * Re-indentation of flow content libyaml accepts and js-yaml refuses ("deficient indentation"):
 * continuation lines of a quoted scalar or flow collection no deeper than their key, e.g.
 * `description: "An operator` followed by `that does things"` at the same column (published
 * bundles have them). Their leading white space is insignificant, so padding them to the
 * opening column changes no value. A small tokenizer skips comments, block and plain scalars.
 * Used only after js-yaml refused a document so; a failed retry reports the original error.
 */

/**
 * The text with under-indented continuation lines padded, or undefined when `err` is not a
 * deficient-indentation error or nothing needed padding.
 */
export function repairIndentation(text: string, err: unknown): string | undefined {
  if (!(err instanceof Error) || !('reason' in err) || err.reason !== 'deficient indentation') return undefined;
  const lines = text.split('\n');
  const t = new Tokenizer();
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n] as string;
    const pad = t.line(line);
    if (pad > 0) {
      lines[n] = ' '.repeat(pad) + line;
      changed = true;
    }
  }
  return changed ? lines.join('\n') : undefined;
}

const TOKEN_BEFORE = new Set(['', '-', ':', '?', ',', '[', '{']);

/** Where a text ends, as far as the tokenizer can tell: an open quote, open flow collections. */
interface EndState {
  quote: boolean;
  /** Open flow collections, innermost last: `[` or `{`. */
  flow: string[];
  /** Inside a flow collection right after `[`, `{`, `,` or `:`: a node is expected next. */
  expectingNode: boolean;
}

/** Runs the tokenizer over the whole text and reports its state at the end. */
export function endState(text: string): EndState {
  const t = new Tokenizer();
  for (const line of text.split('\n')) t.line(line);
  return { quote: t.quote !== undefined, flow: [...t.flowStack], expectingNode: t.flowStack.length > 0 && '[{,:'.includes(t.lastFlowToken) };
}

class Tokenizer {
  quote: '"' | "'" | undefined;
  /** Open flow collections (`[` or `{`), innermost last. */
  readonly flowStack: string[] = [];
  /** The last token seen inside a flow collection (a bracket, `,`, `:`, or 's' for a scalar). */
  lastFlowToken = '';
  /** Column continuation lines of the open quote or flow collection must reach. */
  private target = 0;
  private blockParent = -1;

  private get flow(): number {
    return this.flowStack.length;
  }

  /** Consumes one line; returns how many spaces to insert before it. */
  line(line: string): number {
    const indent = leadingSpaces(line);
    const blank = indent === line.length || line[indent] === '\r';
    if (this.blockParent >= 0) {
      if (blank || indent > this.blockParent) return 0;
      this.blockParent = -1;
    }
    let pad = 0;
    const open = this.quote !== undefined || this.flow > 0;
    if (open && !blank && indent < this.target && !/^(?:---|\.\.\.)(?:[ \t\r]|$)/.test(line)) pad = this.target - indent;
    this.scan(line, indent, pad);
    return pad;
  }

  private scan(line: string, indent: number, pad: number): void {
    let prev = ''; // last non-space character outside scalars on this line ('' at line start)
    let plain = false;
    let i = indent;
    // Indentation of the node that owns a block scalar started on this line: after "- " items.
    let owner = indent;
    while (line.startsWith('- ', owner)) owner = owner + 2 + leadingSpaces(line.slice(owner + 2));
    for (; i < line.length; i++) {
      const c = line[i] as string;
      if (this.quote === '"') {
        if (c === '\\') i++;
        else if (c === '"') this.quote = undefined;
        continue;
      }
      if (this.quote === "'") {
        if (c === "'" && line[i + 1] === "'") i++;
        else if (c === "'") this.quote = undefined;
        continue;
      }
      if (this.flow > 0 && c !== ' ' && c !== '\t' && c !== '\r' && c !== '#') this.lastFlowToken = '[]{},:'.includes(c) ? c : 's';
      const spaceBefore = i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t';
      if (c === ' ' || c === '\t' || c === '\r') continue;
      if (c === '#' && spaceBefore) return;
      if (plain) {
        if (c === ':' && /[ \t\r]|^$/.test(line[i + 1] ?? '')) {
          plain = false;
          prev = ':';
        } else if (this.flow > 0 && ',[]{}'.includes(c)) {
          plain = false;
          i--;
        }
        continue;
      }
      const atToken = TOKEN_BEFORE.has(prev) || prev === 'prop';
      if ((c === '"' || c === "'") && atToken) {
        this.quote = c;
        if (this.flow === 0) this.target = i + pad;
        prev = 'scalar';
        continue;
      }
      if ((c === '[' || c === '{') && (atToken || this.flow > 0)) {
        if (this.flow === 0) this.target = i + pad;
        this.flowStack.push(c);
        prev = c;
        continue;
      }
      if ((c === ']' || c === '}') && this.flow > 0) {
        this.flowStack.pop();
        prev = c;
        continue;
      }
      if (this.flow > 0 && (c === ',' || c === ':')) {
        prev = c;
        continue;
      }
      if ((c === '-' || c === '?' || c === ':') && /[ \t\r]|^$/.test(line[i + 1] ?? '')) {
        prev = c;
        continue;
      }
      if ((c === '!' || c === '&') && atToken) {
        while (i + 1 < line.length && !/[ \t\r]/.test(line[i + 1] as string)) i++;
        prev = 'prop';
        continue;
      }
      if ((c === '|' || c === '>') && atToken && this.flow === 0) {
        this.blockParent = owner;
        return;
      }
      plain = true;
      prev = 'scalar';
    }
  }
}

function leadingSpaces(s: string): number {
  let n = 0;
  while (s.charCodeAt(n) === 0x20) n++;
  return n;
}

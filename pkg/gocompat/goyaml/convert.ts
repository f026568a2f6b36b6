/**
 * One YAML document to the JSON value sigs.k8s.io/yaml v1.6.0's `YAMLToJSON` produces over
 * go.yaml.in/yaml/v2 v2.4.4: js-yaml only parses (its event stream); building the value is ours
 * and follows go-yaml v2's decoder into interface{} plus sigs.k8s.io/yaml's conversion:
 * - plain scalars typed by {@link resolvePlain}; quoted ones are strings; explicit `!!str`,
 *   `!!int`, `!!float`, `!!bool`, `!!null`, `!!timestamp` and `!!binary` as go-yaml applies
 *   them; unknown tags (`!foo`) ignored;
 * - merge keys `<<` applied in document order (a key before `<<` is overridden by the merged
 *   map, one after it wins; in a merge list earlier maps win), duplicate keys last-wins;
 * - map keys stringified: ints in decimal, floats as float32 `'g'`, booleans as words;
 *   collection and null keys are errors with go-yaml's/sigs.k8s.io/yaml's texts;
 * - non-finite floats fail as json.Marshal does (`json: unsupported value: +Inf`);
 * - aliases share the anchored value; expansion is bounded like go-yaml's alias-ratio check
 *   (`yaml: document contains excessive aliasing`);
 * - nesting is bounded by MAX_NESTING_DEPTH (limits.ts; go-yaml's wording, our number), and
 *   optionally the length of each scalar.
 * Only the first document of `text` is converted, as go-yaml's Unmarshal does.
 */
import { EVENT_ID, getScalarValue, parseEvents, SCALAR_STYLE, type Event, type ScalarEvent } from 'js-yaml';
import { floatKey, goPlusSharpV, goSharpV } from './go-format.ts';
import { repairIndentation } from './indent-repair.ts';
import { resolvePlain, resolveTagged, TAG_PREFIX, type Resolved } from './resolve.ts';
import { DecodeLimitError, YamlConvertError } from './errors.ts';
import { MAX_NESTING_DEPTH } from './limits.ts';
import { goYamlSyntaxError } from './syntax-errors.ts';
import type { JsonValue } from './types.ts';

type JsonObject = { [key: string]: JsonValue };

/** A built node: its JSON value, and what map-key conversion and merges need to know. */
interface Built {
  value: JsonValue;
  /** Go type of a scalar for key stringification; undefined for collections. */
  scalar: Resolved | undefined;
  kind: 'scalar' | 'seq' | 'map';
  /** Number of go-yaml decode steps the node costs (for the alias-ratio check). */
  size: number;
  /** A merge key: plain `<<` or `!!merge <<` (an alias of one is not). */
  merge: boolean;
}

interface Frame {
  kind: 'seq' | 'map';
  anchor: string | undefined;
  items: JsonValue[];
  /** Kinds of the items (a merge list must hold maps only). */
  itemKinds: Built['kind'][];
  obj: JsonObject;
  size: number;
  /** Map frames: the key waiting for its value, or undefined when a key comes next. */
  key: { text: string; merge: boolean } | undefined;
  /** Map frames: the pending key is null (sigs.k8s.io/yaml refuses it, naming the value). */
  nullKey: boolean;
}

/** Options of {@link yamlToJsonValue}. */
interface ConvertOptions {
  /** Longest scalar accepted, measured as its source text (UTF-16 units); default no limit. */
  maxStringBytes?: number;
}

/**
 * Converts the first document of UTF-8 `input` to JSON (null for an empty or comment-only text).
 * @throws YamlConvertError with go-yaml's or sigs.k8s.io/yaml's text; DecodeLimitError for a
 *   scalar longer than `options.maxStringBytes`.
 */
export function yamlToJsonValue(input: string | Uint8Array, options: ConvertOptions = {}): JsonValue {
  const decoded = typeof input === 'string' ? input : utf8OrFail(input);
  // NEL is a line break to libyaml (YAML 1.1) and only content to js-yaml; it reads as "\n".
  const text = decoded.includes('\u0085') ? decoded.replaceAll('\u0085', '\n') : decoded;
  const parsed = parse(text);
  return new Builder(parsed.source, options.maxStringBytes ?? Infinity).document(parsed.events);
}

const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function utf8OrFail(bytes: Uint8Array): string {
  try {
    return FATAL_UTF8.decode(bytes);
  } catch {
    throw new YamlConvertError('yaml: invalid leading UTF-8 octet');
  }
}

// js-yaml counts the document as a level: 1000 nested collections are 1001 of its levels.
const JS_YAML_DEPTH = MAX_NESTING_DEPTH + 1;

// The events and the text their offsets refer to (a repaired copy of `text`, possibly).
function parse(text: string): { events: Event[]; source: string } {
  try {
    return { events: parseEvents(text, { maxDepth: JS_YAML_DEPTH }), source: text };
  } catch (first) {
    // go-yaml reads lazily: a syntax error after the first document is never seen.
    const end = firstDocumentEnd(text);
    if (end !== undefined) {
      try {
        return { events: parseEvents(text.slice(0, end), { maxDepth: JS_YAML_DEPTH }), source: text };
      } catch {
        // fall through to the original error
      }
    }
    // js-yaml wants flow scalars and collections indented past their parent; libyaml does not.
    const repaired = repairIndentation(text, first);
    if (repaired !== undefined) {
      try {
        return { events: parseEvents(repaired, { maxDepth: JS_YAML_DEPTH }), source: repaired };
      } catch {
        // fall through to the original error
      }
    }
    throw new YamlConvertError(goYamlSyntaxError(text, first));
  }
}

// Offset of the line that ends the first document (`---` after content, or `...`).
function firstDocumentEnd(text: string): number | undefined {
  let content = false;
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    const marker = text.startsWith('---', at) || text.startsWith('...', at);
    const after = text.charCodeAt(at + 3);
    if (marker && (at + 3 >= end || after === 0x20 || after === 0x09 || after === 0x0d)) {
      if (content || text.startsWith('...', at)) return at;
      content = true;
    } else if (!content) {
      const trimmed = text.slice(at, end).trim();
      if (trimmed !== '' && !trimmed.startsWith('#') && !trimmed.startsWith('%')) content = true;
    }
    at = end + 1;
  }
  return undefined;
}

class Builder {
  private readonly text: string;
  private readonly anchors = new Map<string, Built>();
  private readonly building = new Set<string>();
  private decodeCount = 0;
  private aliasCount = 0;
  private nonFinite: number | undefined;
  private keyError: string | undefined;
  private readonly maxString: number;

  constructor(text: string, maxString: number) {
    this.text = text;
    this.maxString = maxString;
  }

  document(events: Event[]): JsonValue {
    const stack: Frame[] = [];
    let root: Built | undefined;
    let i = 0;
    const doc = events[0];
    if (doc?.type !== EVENT_ID.DOCUMENT) return null;
    // libyaml accepts only `%YAML 1.1` (and no directive).
    if (doc.directives.some((d) => d.kind === 'yaml' && d.version !== '1.1')) throw new YamlConvertError('yaml: found incompatible YAML document');
    this.decodeCount = 1;
    for (i = 1; i < events.length; i++) {
      const e = events[i] as Event;
      let built: Built | undefined;
      switch (e.type) {
        case EVENT_ID.SCALAR:
          built = this.scalar(e);
          break;
        case EVENT_ID.ALIAS:
          built = this.alias(this.slice(e.anchorStart, e.anchorEnd));
          break;
        case EVENT_ID.SEQUENCE:
        case EVENT_ID.MAPPING: {
          const anchor = e.anchorStart >= 0 ? this.slice(e.anchorStart, e.anchorEnd) : undefined;
          if (anchor !== undefined) this.building.add(anchor);
          stack.push({
            kind: e.type === EVENT_ID.SEQUENCE ? 'seq' : 'map',
            anchor,
            items: [],
            itemKinds: [],
            obj: {},
            size: 1,
            key: undefined,
            nullKey: false,
          });
          continue;
        }
        case EVENT_ID.POP: {
          const frame = stack.pop();
          if (frame === undefined) {
            i = events.length;
            continue;
          }
          built =
            frame.kind === 'seq'
              ? { value: frame.items, scalar: undefined, kind: 'seq', size: frame.size, merge: false }
              : { value: frame.obj, scalar: undefined, kind: 'map', size: frame.size, merge: false };
          if (frame.anchor !== undefined) {
            this.building.delete(frame.anchor);
            this.anchors.set(frame.anchor, built);
          }
          break;
        }
        default:
          // A second document: go-yaml's Unmarshal stops after the first.
          i = events.length;
          continue;
      }
      if (built === undefined) continue;
      const parent = stack.at(-1);
      if (parent === undefined) {
        root = built;
        this.checkFinite(built);
      } else this.add(parent, built);
    }
    // sigs.k8s.io/yaml's conversion fails before json.Marshal does.
    if (this.keyError !== undefined) throw new YamlConvertError(this.keyError);
    if (this.nonFinite !== undefined)
      throw new YamlConvertError(`json: unsupported value: ${Number.isNaN(this.nonFinite) ? 'NaN' : this.nonFinite > 0 ? '+Inf' : '-Inf'}`);
    return root?.value ?? null;
  }

  private slice(start: number, end: number): string {
    return this.text.slice(start, end);
  }

  private count(n: number, viaAlias: boolean): void {
    this.decodeCount += n;
    if (viaAlias) this.aliasCount += n;
    const d = this.decodeCount;
    if (this.aliasCount > 100 && d > 1000) {
      const allowed = d <= 400_000 ? 0.99 : d >= 4_000_000 ? 0.1 : 0.99 - (0.89 * (d - 400_000)) / 3_600_000;
      if (this.aliasCount / d > allowed) throw new YamlConvertError('yaml: document contains excessive aliasing');
    }
  }

  private alias(name: string): Built {
    if (this.building.has(name)) throw new YamlConvertError(`yaml: anchor '${name}' value contains itself`);
    const target = this.anchors.get(name);
    if (target === undefined) throw new YamlConvertError(`yaml: unknown anchor '${name}' referenced`);
    this.count(1, false);
    this.count(target.size, true);
    return { ...target, size: 1 + target.size, merge: false };
  }

  private scalar(e: ScalarEvent): Built {
    this.count(1, false);
    if (e.valueEnd - e.valueStart > this.maxString) {
      throw new DecodeLimitError(`string exceeds the limit of ${this.maxString} bytes`);
    }
    const raw = e.fast ? this.text.slice(e.valueStart, e.valueEnd) : getScalarValue(this.text, e);
    if (e.style === SCALAR_STYLE.DOUBLE_QUOTED && !e.fast && !raw.isWellFormed()) this.badEscape(e);
    const tag = e.tagStart >= 0 ? expandTag(this.slice(e.tagStart, e.tagEnd)) : '';
    let r: Resolved;
    if (tag === '' && e.style !== SCALAR_STYLE.PLAIN) r = { tag: 'str', value: raw };
    else if (tag === '') r = resolvePlain(raw);
    else r = resolveTagged(tag, raw);
    const merge = raw === '<<' && ((tag === '' && e.style === SCALAR_STYLE.PLAIN) || tag === `${TAG_PREFIX}merge`);
    const built: Built = { value: this.jsonOf(r), scalar: r, kind: 'scalar', size: 1, merge };
    if (e.anchorStart >= 0) this.anchors.set(this.slice(e.anchorStart, e.anchorEnd), built);
    return built;
  }

  // libyaml refuses `\u`/`\U` escapes of surrogates (JS decodes them to lone surrogates).
  private badEscape(e: ScalarEvent): never {
    const at = this.text.slice(e.valueStart, e.valueEnd).search(/\\(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])/);
    const line = lineOf(this.text, e.valueStart + Math.max(at, 0));
    throw new YamlConvertError(`yaml: ${line === 0 ? '' : `line ${line + 1}: `}found invalid Unicode character escape code`);
  }

  private jsonOf(r: Resolved): JsonValue {
    return typeof r.value === 'bigint' ? Number(r.value) : r.value;
  }

  // json.Marshal refuses Inf and NaN values (keys were stringified before, `.inf` is fine).
  private checkFinite(value: Built): void {
    const r = value.scalar;
    if (r?.tag === 'float' && !Number.isFinite(r.value)) this.nonFinite ??= r.value;
  }

  private add(frame: Frame, child: Built): void {
    frame.size += child.size;
    if (frame.kind === 'seq') {
      this.checkFinite(child);
      frame.items.push(child.value);
      frame.itemKinds.push(child.kind);
      return;
    }
    if (frame.key === undefined) {
      frame.key = this.keyOf(child, frame);
      return;
    }
    const key = frame.key;
    frame.key = undefined;
    if (key.merge) return this.merge(frame.obj, child);
    if (frame.nullKey) {
      frame.nullKey = false;
      this.keyError ??= `unsupported map key of type: %!s(<nil>), key: <nil>, value: ${goPlusSharpV(child.value)}`;
      return;
    }
    this.checkFinite(child);
    setKey(frame.obj, key.text, child.value);
  }

  private keyOf(child: Built, frame: Frame): { text: string; merge: boolean } {
    if (child.kind !== 'scalar') throw new YamlConvertError(`yaml: invalid map key: ${goSharpV(child.value)}`);
    const r = child.scalar as Resolved;
    switch (r.tag) {
      case 'str':
        return { text: r.value, merge: child.merge };
      case 'int':
        return { text: r.value.toString(), merge: false };
      case 'float':
        return { text: floatKey(r.value), merge: false };
      case 'bool':
        return { text: r.value ? 'true' : 'false', merge: false };
      case 'null':
        // sigs.k8s.io/yaml refuses it once the value is known; report it then.
        frame.nullKey = true;
        return { text: '', merge: false };
    }
  }

  private merge(obj: JsonObject, source: Built): void {
    const fail = (): never => {
      throw new YamlConvertError('yaml: map merge requires map or sequence of maps as the value');
    };
    if (source.kind === 'map') return copyInto(obj, source.value as JsonObject);
    if (source.kind !== 'seq') return fail();
    const list = source.value as JsonValue[];
    // Earlier maps take precedence: apply them last.
    for (let i = list.length - 1; i >= 0; i--) {
      const item = list[i];
      if (item === null || typeof item !== 'object' || Array.isArray(item)) fail();
      copyInto(obj, item as JsonObject);
    }
  }
}

function lineOf(text: string, pos: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function copyInto(target: JsonObject, source: JsonObject): void {
  for (const key of Object.keys(source)) setKey(target, key, source[key] as JsonValue);
}

function expandTag(tag: string): string {
  if (tag.startsWith('!!')) return TAG_PREFIX + tag.slice(2);
  if (tag.startsWith('!<') && tag.endsWith('>')) return tag.slice(2, -1);
  return tag;
}

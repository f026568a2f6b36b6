/**
 * `--feature-gates` with upstream's grammar and gate names, with Kubernetes' featuregate semantics
 * (repeatable, Go booleans, unknown names refused, AllAlpha/AllBeta, last setting wins). A gate's
 * value is honoured, or has no effect here (a warning at start), or asks for what this
 * implementation lacks: then the binary stops saying so (exit 2) rather than run otherwise.
 */
import { goBool } from '../../pkg/gocompat/gotext/index.ts';
import type { FlagNotice } from './upstream-flags.ts';

/** A gate's value that is accepted and changes nothing here, or that is refused. */
interface GateValueEffect {
  value: boolean;
  /** Completes `<Gate>=<value> ...`: what it would need or why it changes nothing. */
  why: string;
}

/** One gate: upstream's stage, its value here when unset, and where it departs from upstream's meaning. */
export interface GateSpec {
  stage: 'Alpha' | 'Beta' | 'GA';
  /** The value when no flag sets it (may differ from upstream's default; docs/operations.md says where). */
  default: boolean;
  /** This value is accepted and has no effect here (a warning at start). */
  noEffect?: GateValueEffect;
  /** This value asks for what this implementation does not have: refused. */
  refuse?: GateValueEffect;
}

/** The gates, with what was set and what it does. */
interface ParsedGates<K extends string> {
  /** Every gate's value in effect, after the flags (a value with no effect leaves its gate's default). */
  gates: Record<K, boolean>;
  /** Gates set to a value that has no effect here. */
  notices: FlagNotice[];
  /** `gates` with the names sorted, for the start-up line. */
  status: Record<string, boolean>;
}

/** The gates Kubernetes' featuregate package adds to every gate set. */
const SPECIAL = { AllAlpha: 'Alpha', AllBeta: 'Beta' } as const;

/**
 * Parses every occurrence of `--feature-gates` over `specs`. `component` names the binary in a
 * refusal. Throws Error with upstream's text for a malformed entry (`missing bool value for X`,
 * `invalid value of X=Y ...`, `unrecognized feature gate: X`) and, for a gate set to a refused
 * value, `--feature-gates: <Gate>=<value> <why>; remove it or set it to <other>`.
 */
export function parseFeatureGates<K extends string>(
  occurrences: readonly string[] | undefined,
  specs: Readonly<Record<K, GateSpec>>,
  component: string,
): ParsedGates<K> {
  const names = Object.keys(specs) as K[];
  // Named settings, the last one of a name winning (a Map keeps the order of first setting).
  const named = new Map<K, boolean>();
  const special = new Map<keyof typeof SPECIAL, boolean>();
  for (const occurrence of occurrences ?? []) {
    for (const part of occurrence.split(',')) {
      // Empty entries are skipped and only the first `=` splits, as featuregate.Set does.
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = (eq < 0 ? part : part.slice(0, eq)).trim();
      if (eq < 0) throw new Error(`missing bool value for ${name}`);
      const setting = part.slice(eq + 1).trim();
      const value = goBool(setting);
      if (value === undefined)
        throw new Error(`invalid value of ${name}=${setting}, err: strconv.ParseBool: parsing ${JSON.stringify(setting)}: invalid syntax`);
      if (Object.hasOwn(SPECIAL, name)) special.set(name as keyof typeof SPECIAL, value);
      // Own keys only: `toString` or `__proto__` are not gates.
      else if (Object.hasOwn(specs, name)) named.set(name as K, value);
      else throw new Error(`unrecognized feature gate: ${name} (known: ${[...names, ...Object.keys(SPECIAL)].sort().join(', ')})`);
    }
  }
  // What each gate was set to and by which setting (for the messages); unset gates keep their default.
  const set = new Map<K, { value: boolean; by: string }>();
  for (const [all, value] of special) {
    for (const name of names) {
      if (specs[name].stage === SPECIAL[all] && !named.has(name)) set.set(name, { value, by: `${all}=${value}` });
    }
  }
  for (const [name, value] of named) set.set(name, { value, by: `${name}=${value}` });

  const gates = Object.fromEntries(names.map((n) => [n, specs[n].default])) as Record<K, boolean>;
  const notices: FlagNotice[] = [];
  for (const [name, { value, by }] of set) {
    const spec = specs[name];
    if (spec.refuse?.value === value) {
      const asked = `${name}=${value} ${spec.refuse.why}, which this ${component} does not have`;
      throw new Error(
        by.startsWith(`${name}=`)
          ? `--feature-gates: ${asked}; remove it or set it to ${!value}`
          : `--feature-gates: ${by} sets ${name}=${value}, and ${asked}; add ${name}=${!value} or remove ${by}`,
      );
    }
    // A value with no effect leaves the gate at what happens here.
    if (spec.noEffect?.value === value) notices.push({ flag: '--feature-gates', gate: name, value: String(value), reason: spec.noEffect.why });
    else gates[name] = value;
  }
  const status = Object.fromEntries([...names].sort().map((n) => [n, gates[n]]));
  return { gates, notices, status };
}

/** Help lines of `--feature-gates` for `specs`, descriptions at column `col`. */
export function featureGatesHelp<K extends string>(specs: Readonly<Record<K, GateSpec>>, col: number): string {
  const pad = ' '.repeat(col);
  const gates = (Object.keys(specs) as K[]).map((n) => {
    const s = specs[n];
    const refused = s.refuse === undefined ? '' : ` (${s.refuse.value} refused)`;
    const inert = s.noEffect === undefined ? '' : ` (${s.noEffect.value}: no effect)`;
    return `${n}=${s.default}${refused}${inert}`;
  });
  return `  ${'--feature-gates GATES'.padEnd(col - 2)}upstream's gates, Name=true|false, comma-separated or repeated; defaults here:\n${gates.map((g) => `${pad}${g}\n`).join('')}`;
}

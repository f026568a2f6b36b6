/**
 * Upstream's variable substitution in step arguments and doc strings: Go's os.Expand over a
 * map of the scenario's names, an unknown `${X}` or `$X` left as `${X}`.
 */

/** The names one scenario substitutes (upstream's substituteScenarioVars). */
export interface ScenarioNames {
  id: string;
  namespace: string;
  clusterExtensionName: string;
  clusterObjectSetName: string;
  olmNamespace: string;
  /** Package name in the feature file -> the per-scenario package name. */
  catalogPackageNames: ReadonlyMap<string, string>;
  /** Catalog name in the feature file -> the per-scenario ClusterCatalog name. */
  catalogs: ReadonlyMap<string, string>;
}

/** The names of the scenario with pickle `id`, as upstream derives them before the first step. */
export function scenarioNames(id: string, olmNamespace: string): ScenarioNames {
  return {
    id,
    namespace: `ns-${id}`,
    clusterExtensionName: `ce-${id}`,
    clusterObjectSetName: `cos-${id}`,
    olmNamespace,
    catalogPackageNames: new Map(),
    catalogs: new Map(),
  };
}

const SPECIAL = '*#$@!?-0123456789';
const isNameChar = (c: string): boolean => /^[A-Za-z0-9_]$/.test(c);

/** The variable name after a "$" in `s`, and how many characters it spans (Go's getShellName). */
function shellName(s: string): [string, number] {
  const first = s[0] ?? '';
  if (first === '{') {
    if (s.length > 2 && SPECIAL.includes(s[1] ?? '') && s[2] === '}') return [s.slice(1, 2), 3];
    const close = s.indexOf('}', 1);
    if (close === 1) return ['', 2];
    if (close === -1) return ['', 1];
    return [s.slice(1, close), close + 1];
  }
  if (first !== '' && SPECIAL.includes(first)) return [first, 1];
  let i = 0;
  while (i < s.length && isNameChar(s[i] ?? '')) i++;
  return [s.slice(0, i), i];
}

/** Go's os.Expand: `${name}` and `$name` replaced by `mapping(name)`; malformed "${" eaten. */
export function expandShell(content: string, mapping: (name: string) => string): string {
  let out = '';
  let i = 0;
  for (let j = 0; j < content.length; j++) {
    if (content[j] === '$' && j + 1 < content.length) {
      out += content.slice(i, j);
      const [name, width] = shellName(content.slice(j + 1));
      if (name === '' && width > 0) {
        // invalid syntax: eaten
      } else if (name === '') out += '$';
      else out += mapping(name);
      j += width;
      i = j + 1;
    }
  }
  return out + content.slice(i);
}

/** Expands `content` with `values`, leaving an unknown variable as `${name}`. */
export function templateContent(content: string, values: ReadonlyMap<string, string>): string {
  return expandShell(content, (k) => values.get(k) ?? `\${${k}}`);
}

/** The variables of a scenario: TEST_NAMESPACE, NAME, COS_NAME, SCENARIO_ID, OLM_NAMESPACE, PACKAGE:x, CATALOG:x. */
export function scenarioVariables(n: ScenarioNames): Map<string, string> {
  const vars = new Map<string, string>([
    ['TEST_NAMESPACE', n.namespace],
    ['NAME', n.clusterExtensionName],
    ['COS_NAME', n.clusterObjectSetName],
    ['SCENARIO_ID', n.id],
    ['OLM_NAMESPACE', n.olmNamespace],
  ]);
  for (const [orig, param] of n.catalogPackageNames) vars.set(`PACKAGE:${orig}`, param);
  for (const [name, catalog] of n.catalogs) vars.set(`CATALOG:${name}`, catalog);
  return vars;
}

/** upstream's substituteScenarioVars. */
export function substituteScenarioVars(content: string, n: ScenarioNames): string {
  return templateContent(content, scenarioVariables(n));
}

// Checks on the CRD manifests in config/crd that need no API server: that they agree with the
// names in constants.ts and that the version-expression regex behaves as the specification's
// admission table (test/support/version-expressions.ts) says. test/integration/crds-clusterextension.test.ts
// and crds-clustercatalog.test.ts check every rule on a real API server.
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ADMITTED_VERSION_EXPRESSIONS, REFUSED_VERSION_EXPRESSIONS } from '../../../../test/support/version-expressions.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, GROUP, VERSION } from '../index.ts';
import { type ResourceNames } from './constants.ts';

type Json = Record<string, unknown>;

function readCrd(names: ResourceNames): Json {
  const url = new URL(`../../../../config/crd/${GROUP}_${names.plural}.yaml`, import.meta.url);
  return load(readFileSync(url, 'utf8')) as Json;
}

// Walks `path` through nested objects; arrays are indexed by number.
function at(obj: unknown, ...path: (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const key of path) cur = (cur as Record<string | number, unknown> | undefined)?.[key];
  return cur;
}

function schemaOf(crd: Json): Json {
  return at(crd, 'spec', 'versions', 0, 'schema', 'openAPIV3Schema') as Json;
}

const KINDS = [CLUSTER_EXTENSION, CLUSTER_CATALOG];

describe('CRD manifests', () => {
  for (const names of KINDS) {
    it(`${names.kind}: names, scope and the single v1 version agree with constants.ts`, () => {
      const crd = readCrd(names);
      expect(at(crd, 'metadata', 'name')).toBe(names.crdName);
      expect(at(crd, 'spec', 'group')).toBe(GROUP);
      expect(at(crd, 'spec', 'scope')).toBe('Cluster');
      expect(at(crd, 'spec', 'names')).toEqual({
        kind: names.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
      });
      expect(at(crd, 'spec', 'versions', 'length')).toBe(1);
      expect(at(crd, 'spec', 'versions', 0)).toMatchObject({
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
      });
    });
  }

  it("ClusterExtension: upstream's printer columns plus the Progressing reason, and its message under -o wide", () => {
    const columns = at(readCrd(CLUSTER_EXTENSION), 'spec', 'versions', 0, 'additionalPrinterColumns') as Json[];
    expect(columns.map((c) => [c.name, c.jsonPath, c.priority ?? 0])).toEqual([
      ['Installed Bundle', '.status.install.bundle.name', 0],
      ['Version', '.status.install.bundle.version', 0],
      ['Installed', ".status.conditions[?(@.type=='Installed')].status", 0],
      ['Progressing', ".status.conditions[?(@.type=='Progressing')].status", 0],
      ['Reason', ".status.conditions[?(@.type=='Progressing')].reason", 0],
      ['Message', ".status.conditions[?(@.type=='Progressing')].message", 1],
      ['Age', '.metadata.creationTimestamp', 0],
    ]);
  });

  it("ClusterCatalog: upstream's printer columns plus the Progressing reason, and its message under -o wide", () => {
    const columns = at(readCrd(CLUSTER_CATALOG), 'spec', 'versions', 0, 'additionalPrinterColumns') as Json[];
    expect(columns.map((c) => [c.name, c.jsonPath, c.priority ?? 0])).toEqual([
      ['LastUnpacked', '.status.lastUnpacked', 0],
      ['Serving', '.status.conditions[?(@.type=="Serving")].status', 0],
      ['Reason', '.status.conditions[?(@.type=="Progressing")].reason', 0],
      ['Message', '.status.conditions[?(@.type=="Progressing")].message', 1],
      ['Age', '.metadata.creationTimestamp', 0],
    ]);
  });

  it('ClusterExtension: serviceAccount is optional, as upstream HEAD, and its name required when it is given', () => {
    const spec = at(schemaOf(readCrd(CLUSTER_EXTENSION)), 'properties', 'spec') as Json;
    expect(spec.required).toEqual(['namespace', 'source']);
    expect(at(spec, 'properties', 'serviceAccount', 'required')).toEqual(['name']);
    // The Boxcutter runtime's field, served since it runs here (decision 0125), with upstream's bounds.
    expect(at(spec, 'properties', 'progressDeadlineMinutes')).toMatchObject({ type: 'integer', format: 'int32', minimum: 10, maximum: 720 });
  });
});

// The version rule, evaluated with a JavaScript RegExp. CEL uses RE2, which agrees with
// JavaScript on this ASCII-only pattern; the real evaluation is in the integration suite.
function versionRegex(): RegExp {
  const catalog = at(schemaOf(readCrd(CLUSTER_EXTENSION)), 'properties', 'spec', 'properties', 'source', 'properties', 'catalog');
  const rules = at(catalog, 'properties', 'version', 'x-kubernetes-validations') as { rule: string; message: string }[];
  expect(rules.map((r) => r.message)).toEqual(['invalid version expression']);
  const match = /^self\.matches\("(.*)"\)$/.exec(rules[0]?.rule ?? '');
  if (match?.[1] === undefined) throw new Error('version rule is not self.matches("...")');
  // CEL string literal: `\\` stands for one backslash (the only escape the pattern uses).
  return new RegExp(match[1].replaceAll('\\\\', '\\'));
}

describe('version expression rule', () => {
  const re = versionRegex();
  for (const v of ADMITTED_VERSION_EXPRESSIONS) it(`accepts ${JSON.stringify(v)}`, () => expect(re.test(v)).toBe(true));
  for (const v of REFUSED_VERSION_EXPRESSIONS) it(`rejects ${JSON.stringify(v)}`, () => expect(re.test(v)).toBe(false));
});

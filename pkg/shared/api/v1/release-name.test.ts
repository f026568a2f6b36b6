// These constants are the CRD's root rule on metadata.name, for objects admitted before the rule
// existed: the two must not drift apart. test/integration/crds-clusterextension.test.ts checks
// the rule itself on a real API server.
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { RELEASE_NAME_MAX_LENGTH, RELEASE_NAME_MESSAGE, RELEASE_NAME_PATTERN } from './release-name.ts';

interface Rule {
  rule: string;
  message?: string;
  optionalOldSelf?: boolean;
  fieldPath?: string;
}

function rootRules(): Rule[] {
  const crd = load(readFileSync(new URL('../../../../config/crd/olm.operatorframework.io_clusterextensions.yaml', import.meta.url), 'utf8')) as {
    spec: { versions: { schema: { openAPIV3Schema: { 'x-kubernetes-validations'?: Rule[] } } }[] };
  };
  return crd.spec.versions[0]?.schema.openAPIV3Schema['x-kubernetes-validations'] ?? [];
}

describe('release name rule', () => {
  it('is the CRD root rule: same limit, pattern and message, checked at creation only', () => {
    // A CEL string literal writes each backslash of the pattern twice.
    const pattern = RELEASE_NAME_PATTERN.replaceAll('\\', '\\\\');
    expect(rootRules()).toEqual([
      {
        rule: `oldSelf.hasValue() || (size(self.metadata.name) <= ${RELEASE_NAME_MAX_LENGTH} && self.metadata.name.matches("${pattern}"))`,
        message: RELEASE_NAME_MESSAGE,
        optionalOldSelf: true,
        fieldPath: '.metadata.name',
      },
    ]);
    expect(RELEASE_NAME_MESSAGE).toContain(`no longer than ${RELEASE_NAME_MAX_LENGTH} characters`);
  });
});

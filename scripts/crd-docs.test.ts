// docs/api.md is what scripts/crd-docs.ts renders from config/crd and config/crd/experimental
// (regenerate with `node scripts/crd-docs.ts`), and the renderer shows every field with its
// validation and marks the experimental CRDs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { customResourceDefinition } from '../test/support/crds.ts';
import { type Crd, type Schema, readCrds, renderApiDocs, renderCrdDocs } from './crd-docs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('docs/api.md', () => {
  it('is up to date with the CRD schemas (run node scripts/crd-docs.ts)', () => {
    expect(readFileSync(`${root}docs/api.md`, 'utf8')).toBe(renderApiDocs(root));
  });

  it('documents the experimental ClusterObjectSet, marked experimental, and only the CRDs of config/crd/experimental', () => {
    expect(readCrds(`${root}config/crd/experimental`).map((c) => c.spec.names.kind)).toEqual(['ClusterObjectSet']);
    const text = readFileSync(`${root}docs/api.md`, 'utf8');
    expect(text).toContain('- [ClusterObjectSet](#clusterobjectset) (experimental)');
    expect(text).toMatch(/## ClusterObjectSet\n\n[^\n]*\n\n\*\*Experimental\*\*/);
    expect(text).not.toMatch(/## ClusterExtension\n\n[^\n]*\n\n\*\*Experimental\*\*/);
  });

  it('lists nested fields, required marks, constraints and CEL messages', () => {
    const crd: Crd = customResourceDefinition<Schema>({
      group: 'g.test',
      kind: 'Widget',
      plural: 'widgets',
      schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            required: ['size'],
            'x-kubernetes-validations': [{ rule: 'self.size > 0 || self.mode == "a|b"', message: 'size must be positive' }],
            properties: {
              size: { type: 'integer', description: 'How\nbig.', minimum: 1 },
              tags: { type: 'array', items: { type: 'object', required: ['k'], properties: { k: { type: 'string', enum: ['x', 'y'] } } } },
            },
          },
        },
      },
    });
    const text = renderCrdDocs([crd]);
    expect(text).toContain('`g.test/v1`, namespaced; `kubectl get widgets`.');
    expect(text).toContain('| `spec` | object |  | "size must be positive": `self.size > 0 \\|\\| self.mode == "a\\|b"` |');
    expect(text).toContain('| `spec.size` | integer, **required** | How big. | min 1 |');
    expect(text).toContain('| `spec.tags[].k` | string, **required** |  | one of `x`, `y` |');
    expect(text).not.toContain('Experimental');
  });

  it('marks experimental CRDs in the index and under their heading, sorted with the others by kind', () => {
    const schema: Schema = { type: 'object', properties: { spec: { type: 'object' } } };
    const crd = (kind: string): Crd => customResourceDefinition<Schema>({ group: 'g.test', kind, plural: `${kind.toLowerCase()}s`, schema });
    const text = renderCrdDocs([crd('Alpha'), crd('Gamma')], [crd('Beta')]);
    expect(text).toContain('- [Alpha](#alpha)\n- [Beta](#beta) (experimental)\n- [Gamma](#gamma)\n');
    expect(text).toContain('## Beta\n\n`g.test/v1`, namespaced; `kubectl get betas`.\n\n**Experimental**: not part of `config/`;');
    expect(text.match(/\*\*Experimental\*\*/g)).toHaveLength(1);
  });
});

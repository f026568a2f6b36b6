import { describe, expect, it } from 'vitest';
import { installModes, testBundle } from '../../../test/fixtures/bundles/builder.ts';
import { render, watchNamespaceHint, type RenderFailure } from './index.ts';

const NS = 'install-ns';
const bundleWith = (...modes: string[]) => testBundle({ spec: { installModes: installModes(...modes) } });

function refusal(bundle: ReturnType<typeof testBundle>, config?: unknown): RenderFailure {
  const r = render(bundle, { installNamespace: NS, ...(config === undefined ? {} : { config }) });
  if (r.ok) throw new Error('expected a refusal');
  return r.error;
}

describe('watchNamespaceHint', () => {
  it.each([
    [['OwnNamespace'], 'cli', '(the bundle supports only the OwnNamespace install mode: pass --watch-namespace install-ns, the install namespace)'],
    [
      ['OwnNamespace'],
      'cluster-extension',
      '(the bundle supports only the OwnNamespace install mode: set spec.config.inline.watchNamespace: install-ns, the install namespace)',
    ],
    [
      ['SingleNamespace'],
      'cli',
      '(the bundle supports only the SingleNamespace install mode: pass --watch-namespace NS, NS being the namespace its operator watches, other than install-ns)',
    ],
    [
      ['OwnNamespace', 'SingleNamespace'],
      'cluster-extension',
      '(the bundle supports only the OwnNamespace and SingleNamespace install modes: set spec.config.inline.watchNamespace: install-ns to watch the install namespace, or spec.config.inline.watchNamespace: NS to watch another one)',
    ],
  ] as const)('for a bundle supporting %j, tells the %s reader what to pass', (modes, audience, hint) => {
    const bundle = bundleWith(...modes);
    const failure = refusal(bundle);
    expect(failure.message).toBe('invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing');
    expect(watchNamespaceHint(failure, bundle, NS, audience)).toBe(hint);
  });

  it('gives no hint for other refusals', () => {
    const own = bundleWith('OwnNamespace');
    const wrongValue = refusal(own, { watchNamespace: 'elsewhere' });
    expect(wrongValue.message).toContain('because this operator only supports OwnNamespace install mode');
    expect(watchNamespaceHint(wrongValue, own, NS, 'cli')).toBeUndefined();
    const multi = bundleWith('MultiNamespace');
    const noModes = refusal(multi);
    expect(watchNamespaceHint(noModes, multi, NS, 'cli')).toBeUndefined();
  });
});

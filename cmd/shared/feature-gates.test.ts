import { describe, expect, it } from 'vitest';
import { type GateSpec, featureGatesHelp, parseFeatureGates } from './feature-gates.ts';

const SPECS = {
  Alpha: { stage: 'Alpha', default: false },
  Beta: { stage: 'Beta', default: true },
  Ga: { stage: 'GA', default: true },
  Inert: { stage: 'Alpha', default: true, noEffect: { value: false, why: 'is always on here' } },
  Runtime: { stage: 'Alpha', default: false, refuse: { value: true, why: 'asks for the other runtime' } },
} as const satisfies Record<string, GateSpec>;

const DEFAULTS = { Alpha: false, Beta: true, Ga: true, Inert: true, Runtime: false };

function gates(...occurrences: string[]): Record<string, boolean> {
  return parseFeatureGates(occurrences, SPECS, 'thing').gates;
}

describe('parseFeatureGates', () => {
  it.each([
    [[], DEFAULTS],
    [[''], DEFAULTS],
    [['Alpha=true'], { ...DEFAULTS, Alpha: true }],
    [['Beta=false'], { ...DEFAULTS, Beta: false }],
    [['Alpha=true, Beta=false'], { ...DEFAULTS, Alpha: true, Beta: false }],
    [['Alpha=true,Alpha=false'], DEFAULTS],
    [['Alpha=true,'], { ...DEFAULTS, Alpha: true }],
    [[',Alpha = true,,Beta= false '], { ...DEFAULTS, Alpha: true, Beta: false }],
    // Every occurrence adds to the set (upstream's manifests pass one gate each), the last setting wins.
    [['Alpha=true', 'Beta=false', 'Runtime=false'], { ...DEFAULTS, Alpha: true, Beta: false }],
    [['Alpha=true', 'Alpha=false'], DEFAULTS],
    // Go's booleans.
    [['Alpha=1,Beta=F'], { ...DEFAULTS, Alpha: true, Beta: false }],
    [['Alpha=TRUE,Beta=False'], { ...DEFAULTS, Alpha: true, Beta: false }],
    // AllAlpha/AllBeta set the gates of their stage that are not named, whatever the order.
    [['AllBeta=false'], { ...DEFAULTS, Beta: false }],
    [['AllAlpha=true,Runtime=false'], { ...DEFAULTS, Alpha: true, Inert: true }],
    [['Runtime=false', 'AllAlpha=true'], { ...DEFAULTS, Alpha: true, Inert: true }],
  ])('%j', (occurrences, want) => expect(gates(...occurrences)).toEqual(want));

  it('does not modify the specs', () => {
    gates('Alpha=true');
    expect(SPECS.Alpha.default).toBe(false);
  });

  it.each(['Gamma=true', 'alpha=true', 'toString=true', '__proto__=true'])('refuses the unknown gate in %j, listing the known ones', (v) =>
    expect(() => gates(v)).toThrow(`unrecognized feature gate: ${v.split('=')[0]} (known: AllAlpha, AllBeta, Alpha, Beta, Ga, Inert, Runtime)`),
  );

  it.each([
    ['Alpha', 'missing bool value for Alpha'],
    ['Alpha=', 'invalid value of Alpha=, err: strconv.ParseBool: parsing "": invalid syntax'],
    ['Alpha=yes', 'invalid value of Alpha=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    ['Alpha=true=false', 'invalid value of Alpha=true=false, err: strconv.ParseBool: parsing "true=false": invalid syntax'],
  ])('refuses the bad value in %j with upstream text', (v, message) => expect(() => gates(v)).toThrow(message));

  it('refuses a value that asks for what the binary does not have, saying so', () => {
    expect(() => gates('Alpha=true', 'Runtime=true')).toThrow(
      new Error('--feature-gates: Runtime=true asks for the other runtime, which this thing does not have; remove it or set it to false'),
    );
    expect(() => gates('AllAlpha=true')).toThrow(
      new Error(
        '--feature-gates: AllAlpha=true sets Runtime=true, and Runtime=true asks for the other runtime, which this thing does not have; add Runtime=false or remove AllAlpha=true',
      ),
    );
    // The last setting counts.
    expect(gates('Runtime=true', 'Runtime=false').Runtime).toBe(false);
  });

  it('reports a value with no effect, and only that one', () => {
    expect(parseFeatureGates(['Inert=false', 'Alpha=true'], SPECS, 'thing')).toEqual({
      gates: { ...DEFAULTS, Alpha: true },
      notices: [{ flag: '--feature-gates', gate: 'Inert', value: 'false', reason: 'is always on here' }],
      status: { Alpha: true, Beta: true, Ga: true, Inert: true, Runtime: false },
    });
    expect(parseFeatureGates(['Inert=true', 'Runtime=false'], SPECS, 'thing').notices).toEqual([]);
    expect(parseFeatureGates(['AllAlpha=false'], SPECS, 'thing').notices).toEqual([
      { flag: '--feature-gates', gate: 'Inert', value: 'false', reason: 'is always on here' },
    ]);
  });

  it('help lists each gate with its default here and its refused or inert value', () => {
    const help = featureGatesHelp(SPECS, 36);
    for (const s of ['--feature-gates', 'Alpha=false', 'Inert=true (false: no effect)', 'Runtime=false (true refused)']) expect(help).toContain(s);
  });
});

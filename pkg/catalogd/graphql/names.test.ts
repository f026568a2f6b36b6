import { describe, expect, it } from 'vitest';
import { fieldName, rootFieldName, typeName } from './names.ts';

describe("upstream's GraphQL names", () => {
  it.each([
    ['name', 'name'],
    ['defaultChannel', 'defaultChannel'],
    ['skip-range', 'skipRange'],
    ['olm.package', 'olmPackage'],
    ['API_VERSION', 'apiVersion'],
    ['__private', 'private'],
    ['9lives', 'field_9lives'],
    ['---', 'field_'],
    ['', 'value'],
    ['ÜberField', 'berField'],
  ])('field %j is %j', (key, want) => expect(fieldName(key)).toBe(want));

  it.each([
    ['olm.bundle', 'OlmBundle'],
    ['olm.csv.metadata', 'OlmCsvMetadata'],
    ['relatedImages', 'Relatedimages'],
    ['42', 'Unknown'],
    ['1st.thing', 'StThing'],
  ])('type %j is %j', (name, want) => expect(typeName(name)).toBe(want));

  it('root fields: letters and digits, lower-cased, plus s', () => {
    expect(rootFieldName('olm.bundle')).toBe('olmbundles');
    expect(rootFieldName('OLM.Package')).toBe('olmpackages');
    expect(rootFieldName('helm.chart')).toBe('helmcharts');
  });
});

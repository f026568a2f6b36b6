/**
 * How catalog schema names and JSON keys become GraphQL names, as upstream catalogd derives
 * them (observable in every query): a schema `olm.bundle` is the root field `olmbundles` of
 * objects of type `OlmBundle`; a JSON key becomes a camelCase field name.
 */

/**
 * A JSON key as a GraphQL field name: characters other than ASCII letters, digits and `_`
 * become `_`, runs of `_` collapse, leading ones go; the parts between underscores are joined
 * camelCase (the first lower-cased whole when it is all upper case, else only its first letter;
 * the others capitalised, their rest lower-cased); a name not starting with a letter gets the
 * prefix `field_`, and the empty key is `value`.
 */
export function fieldName(key: string): string {
  if (key === '') return 'value';
  const parts = key
    .replace(/[^a-zA-Z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+/, '')
    .split('_')
    .filter((p) => p !== '');
  let result = '';
  parts.forEach((part, i) => {
    if (i === 0) result = part.toUpperCase() === part ? part.toLowerCase() : part.charAt(0).toLowerCase() + part.slice(1);
    else result += part.charAt(0).toUpperCase() + part.slice(1).toLowerCase();
  });
  return /^[a-zA-Z]/.test(result) ? result : `field_${result}`;
}

/**
 * A schema or field name as a GraphQL type name part: non-alphanumerics split it into words,
 * leading digits go, each word is capitalised with its rest lower-cased (`olm.bundle` →
 * `OlmBundle`, `relatedImages` → `Relatedimages`); nothing left is `Unknown`.
 */
export function typeName(name: string): string {
  const words = name
    .replace(/[^a-zA-Z0-9]/g, '_')
    .replace(/^[0-9]+/, '')
    .split('_');
  const result = words
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join('');
  return result === '' ? 'Unknown' : result;
}

/** The root query field of a schema: its letters and digits, lower-cased, plus `s` (`olm.bundle` → `olmbundles`). */
export function rootFieldName(schema: string): string {
  return `${schema.replace(/[^a-zA-Z0-9]/g, '').toLowerCase()}s`;
}

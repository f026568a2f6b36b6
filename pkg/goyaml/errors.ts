/** Errors of the YAML decoder. */

/** A document that go-yaml or sigs.k8s.io/yaml refuses; `message` is Go's text (`yaml: ...`). */
export class YamlConvertError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlConvertError';
  }
}

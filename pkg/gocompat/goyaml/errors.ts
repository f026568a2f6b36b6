/** Errors of the YAML decoder. */

/** A document that go-yaml or sigs.k8s.io/yaml refuses; `message` is Go's text (`yaml: ...`). */
export class YamlConvertError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlConvertError';
  }
}

/**
 * Input refused for a size limit of ours (not a Go error): a string longer than the caller
 * allows. The message is ours and carries no `yaml:` prefix.
 */
export class DecodeLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeLimitError';
  }
}

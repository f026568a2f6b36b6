/**
 * Parsing objects of this API at the edge (API server responses, watch events, manifest
 * files) into their typed form, with one-line errors in the style of the API server's own
 * (`<Kind> "<name>" is invalid: <path>: <problem>`).
 */
import type { z } from 'zod';
import { err, ok, type Result } from '../../errors/index.ts';

/**
 * Parses `input` with `schema`; never throws. The error is one line naming the kind, the name
 * and every problem with its path (`ClusterExtension "argocd" is invalid: spec.x: ...`),
 * several in brackets separated by ", ".
 */
export function parseObject<S extends z.ZodType>(schema: S, kind: string, input: unknown): Result<z.output<S>, string> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return ok(parsed.data);
  const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  const list = problems.length === 1 ? (problems[0] ?? '') : `[${problems.join(', ')}]`;
  return err(`${describe(kind, input)} is invalid: ${list}`);
}

// `<Kind> "<name>"`, or just `<Kind>` when the input has no usable metadata.name.
function describe(kind: string, input: unknown): string {
  const name = nameOf(input);
  return name === undefined ? kind : `${kind} ${JSON.stringify(name)}`;
}

function nameOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const metadata: unknown = (input as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const name: unknown = (metadata as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** A zod issue path as the API server writes it: `spec.channels[0]`, `(root)` for the object. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? '(root)' : out;
}

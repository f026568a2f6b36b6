/**
 * `olmv1 catalog validate DIR`: `opm validate`, except that every decode error (file and line) and
 * every validation error is reported, not only the first.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson, type DecodeLimits, type FbcLoadError, loadFS, validate } from '../../pkg/shared/fbc/index.ts';
import { goQuote } from '../../pkg/gocompat/gotext/index.ts';
import { toYaml } from '../../pkg/operator-controller/render/index.ts';
import { DECODE_LIMIT_FLAGS, decodeLimitHelp, decodeLimitOptions } from '../shared/limits.ts';
import { type CommandIO, EXIT } from './io.ts';

const USAGE = `Usage: olmv1 catalog validate <directory> [-o json|yaml]

Validate the file-based catalog in <directory> (like opm validate) and report every error:
decode errors with file and line, then model errors as upstream's "invalid index:" tree.

Flags:
  -o, --output string         Output format for validation results (json|yaml)
${decodeLimitHelp(30)}  -h, --help                  Show this help

SIZE is a number of bytes, optionally with a suffix (Ki, Mi, Gi, or k, M, G).

Output:
  Without -o: nothing on stdout; every error on stderr, one per line.
  With -o: opm's result on stdout, {"passed": bool, "error": {"message": ...}} as JSON or YAML.

Exit codes:
  0  valid
  1  invalid, or the directory could not be read (the error names the path)
  2  usage error, or <directory> is not a directory
`;

interface ParsedArgs {
  dir: string;
  output: string;
  limits: DecodeLimits;
}

type LimitFlag = keyof typeof DECODE_LIMIT_FLAGS;
const LIMIT_FLAGS = new Set(Object.keys(DECODE_LIMIT_FLAGS));

function parseArgs(args: string[]): ParsedArgs | { help: true } | { error: string } {
  const positional: string[] = [];
  let output = '';
  const limitValues: { [K in LimitFlag]?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-h' || a === '--help') return { help: true };
    const [flag = '', inline] = a.startsWith('--') ? a.slice(2).split(/=(.*)/s) : [];
    if (LIMIT_FLAGS.has(flag)) {
      const v = inline ?? args[++i];
      if (v === undefined) return { error: `flag needs an argument: --${flag}` };
      limitValues[flag as LimitFlag] = v;
      continue;
    }
    if (a === '-o' || a === '--output') {
      const v = args[++i];
      if (v === undefined) return { error: `flag needs an argument: ${a}` };
      output = v;
    } else if (a.startsWith('--output=')) {
      output = a.slice('--output='.length);
    } else if (a.startsWith('-o') && a.length > 2) {
      output = a.slice(a[2] === '=' ? 3 : 2);
    } else if (a.startsWith('-') && a !== '-') {
      return { error: `unknown flag: ${a}` };
    } else {
      positional.push(a);
    }
  }
  if (positional.length !== 1) return { error: `accepts 1 arg(s), received ${positional.length}` };
  if (output !== '' && output !== 'json' && output !== 'yaml') {
    return { error: `invalid --output value ${goQuote(output)}, expected (json|yaml)` };
  }
  try {
    return { dir: positional[0] as string, output, limits: decodeLimitOptions(limitValues) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Runs `catalog validate`; see the file comment for arguments, output and exit codes. */
export async function runCatalogValidate(args: string[], io: CommandIO): Promise<number> {
  const parsed = parseArgs(args);
  if ('help' in parsed) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if ('error' in parsed) {
    io.stderr.write(`Error: ${parsed.error}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (!(await isDirectory(parsed.dir))) {
    io.stderr.write(`Error: ${goQuote(parsed.dir)} is not a directory\n`);
    return EXIT.usage;
  }

  let errors: string[];
  try {
    errors = await validateCatalogDir(parsed.dir, parsed.limits);
  } catch (err) {
    // Only I/O failures get here: decode errors are collected above.
    io.stderr.write(`Error: reading catalog ${goQuote(parsed.dir)}: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  }

  if (parsed.output !== '') {
    io.stdout.write(formatResult(errors, parsed.output));
    return errors.length === 0 ? EXIT.ok : EXIT.failed;
  }
  for (const e of errors) io.stderr.write(`${e}\n`);
  return errors.length === 0 ? EXIT.ok : EXIT.failed;
}

/**
 * Every decode and validation error of the catalog in `dir` (empty when valid), in the order
 * `catalog validate` prints them. Throws for I/O failures and a catalog over its size limit.
 */
export async function validateCatalogDir(dir: string, limits?: Partial<DecodeLimits>): Promise<string[]> {
  // Every manifest of a bundle would be reported as a document without a schema: say what it is instead.
  if (await isBundleDir(dir)) return [bundleDirMessage(dir)];
  const errors: string[] = [];
  const cfg = await loadFS(dir, { onError: (e: FbcLoadError) => errors.push(e.message), limits });
  errors.push(...validate(cfg));
  return errors;
}

/** A registry+v1 bundle directory: `manifests/` and `metadata/annotations.yaml`. */
async function isBundleDir(dir: string): Promise<boolean> {
  const [manifests, annotations] = await Promise.all([
    stat(join(dir, 'manifests')).catch(() => undefined),
    stat(join(dir, 'metadata', 'annotations.yaml')).catch(() => undefined),
  ]);
  return manifests?.isDirectory() === true && annotations?.isFile() === true;
}

function bundleDirMessage(dir: string): string {
  return `${goQuote(dir)} is a registry+v1 bundle directory, not a file-based catalog: use "olmv1 render bundle ${dir} --install-namespace NS" to check it, "olmv1 bundle push ${dir} IMAGE" to publish it`;
}

// opm's structured result, byte for byte: JSON (two-space indent, Go's HTML escaping) or YAML
// (sorted keys), as fmt.Fprintln prints them.
function formatResult(errors: string[], output: string): string {
  const passed = errors.length === 0;
  const message = errors.join('\n');
  if (output === 'yaml') {
    const doc = passed ? { passed } : { error: { message }, passed };
    return `${toYaml(doc)}\n`;
  }
  if (passed) return '{\n  "passed": true\n}\n';
  const quoted = canonicalJson(message).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  return `{\n  "passed": false,\n  "error": {\n    "message": ${quoted}\n  }\n}\n`;
}

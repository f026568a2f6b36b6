import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runCatalogValidate } from './catalog-validate.ts';

const TESTDATA = fileURLToPath(new URL('../../pkg/shared/fbc/testdata/', import.meta.url));

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void): Writable =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        append(chunk.toString());
        cb();
      },
    });
  const code = await runCatalogValidate(args, { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)) });
  return { code, stdout, stderr };
}

const MODEL_ERRORS = [
  'package "foo" bundle "foo.v1" image: invalid image pull spec "quay.io/Example/foo-bundle:v1": invalid reference format: repository name must be lowercase',
  'error parsing bundle "foo.v2" version "2.0": No Major.Minor.Patch elements found',
  'cannot deprecate bundle "foo.v9" for package "foo": bundle not found',
  [
    'invalid index:',
    '└── invalid package "foo":',
    '    └── invalid channel "stable":',
    '        ├── multiple channel heads found in graph: foo.v2, foo.v3',
    '        └── invalid bundle "foo.v3":',
    '            └── bundle image must be set',
  ].join('\n'),
];

describe('olmv1 catalog validate', () => {
  it('prints nothing and exits 0 for a valid catalog', async () => {
    expect(await run(`${TESTDATA}valid`)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('reports every validation error on stderr and exits 1', async () => {
    const r = await run(`${TESTDATA}invalid-model`);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${MODEL_ERRORS.join('\n')}\n`);
  });

  it('says a registry+v1 bundle directory is not a catalog, in one line, exit 1', async () => {
    const dir = fileURLToPath(new URL('../../examples/example-operator/bundles/1.0.0', import.meta.url));
    const r = await run(dir);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `"${dir}" is a registry+v1 bundle directory, not a file-based catalog: use "olmv1 render bundle ${dir} --install-namespace NS" to check it, "olmv1 bundle push ${dir} IMAGE" to publish it\n`,
    });
  });

  it('never prints a whole large document: manifests in a catalog are reported cut', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'olmv1-validate-manifests-'));
    try {
      const icon = 'iVBORw0KGgo'.repeat(2000);
      await writeFile(
        join(dir, 'csv.yaml'),
        `apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nspec:\n  icon:\n  - base64data: ${icon}\n`,
      );
      const r = await run(dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^csv\.yaml:1: object '\{"apiVersion":"operators\.coreos\.com\/v1alpha1",.{0,40}\.\.\. \(\d+ characters\)' is missing root schema field\n/,
      );
      expect(r.stderr.length).toBeLessThan(300);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the file and line of every decode error', async () => {
    const r = await run(`${TESTDATA}invalid-decode`);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(`a/catalog.json:3: invalid character '}' looking for beginning of value`);
    // The line of the error in the file (not in its document), as the prefix says.
    expect(lines[1]).toBe(`b/catalog.yaml:7: error converting YAML to JSON: yaml: line 7 (document 2): did not find expected ',' or '}'`);
    expect(lines[2]).toBe('c.json:1: duplicate keys for key "name": [Name name]');
    expect(lines[3]).toBe(
      'notes.txt:1: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {} at offset 13 (indicated by <==)',
    );
    // Validation still runs on what could be decoded.
    expect(r.stderr).toContain('no olm.bundle blobs found in package "a" for olm.channel entries [a.v1]');
  });

  it('prints opm-style structured results with -o json', async () => {
    expect(await run(`${TESTDATA}valid`, '-o', 'json')).toEqual({ code: 0, stdout: '{\n  "passed": true\n}\n', stderr: '' });
    const r = await run('--output=json', `${TESTDATA}invalid-model`);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ passed: false, error: { message: MODEL_ERRORS.join('\n') } });
    expect(r.stdout.startsWith('{\n  "passed": false,\n  "error": {\n    "message": "package \\"foo\\"')).toBe(true);
  });

  it('escapes HTML characters in JSON output like Go', async () => {
    const r = await run(`${TESTDATA}invalid-decode`, '-ojson');
    expect(r.stdout).toContain('(indicated by \\u003c==)');
    expect(r.stdout).not.toContain('<==');
  });

  it('prints YAML with -o yaml', async () => {
    expect(await run(`${TESTDATA}valid`, '-o', 'yaml')).toEqual({ code: 0, stdout: 'passed: true\n\n', stderr: '' });
    const r = await run(`${TESTDATA}invalid-model`, '-o', 'yaml');
    expect(r.code).toBe(1);
    expect(r.stdout.startsWith('error:\n  message: ')).toBe(true);
    expect(load(r.stdout)).toEqual({ error: { message: MODEL_ERRORS.join('\n') }, passed: false });
  });

  it.each<[string[], string]>([
    [[], 'Error: accepts 1 arg(s), received 0'],
    [['a', 'b'], 'Error: accepts 1 arg(s), received 2'],
    [[`${TESTDATA}valid`, '-o', 'xml'], 'Error: invalid --output value "xml", expected (json|yaml)'],
    [[`${TESTDATA}valid`, '--frobnicate'], 'Error: unknown flag: --frobnicate'],
    [[`${TESTDATA}does-not-exist`], `Error: "${TESTDATA}does-not-exist" is not a directory`],
    [[`${TESTDATA}valid/README.md`], `Error: "${TESTDATA}valid/README.md" is not a directory`],
    [
      [`${TESTDATA}valid`, '--max-document-bytes', '0'],
      'Error: invalid --max-document-bytes "0" (want a positive size in bytes, e.g. 1048576, 512Mi or 2Gi)',
    ],
    [[`${TESTDATA}valid`, '--max-string-bytes'], 'Error: flag needs an argument: --max-string-bytes'],
  ])('exits 2 on usage errors: %j', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(message);
  });

  it('keeps going after a document of the wrong type and reports the rest of the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'validate-types-'));
    try {
      const pkg = '{"schema":"olm.package","name":"foo","defaultChannel":"stable"}\n';
      const channel = '{"schema":"olm.channel","name":"stable","package":"foo","entries":[{"name":"foo.v1"}]}\n';
      const bundle = '{"schema":"olm.bundle","name":"foo.v1","package":"foo","image":"quay.io/x/Foo:v1","properties":[]}\n';
      await writeFile(join(dir, 'catalog.json'), `${pkg}${channel}{"schema":"olm.package","name":12}\n${bundle}[1]\n`);
      const r = await run(dir);
      expect(r.code).toBe(1);
      const lines = r.stderr.split('\n');
      expect(lines[0]).toBe('catalog.json:3: expected value for key "name" to be a string, got %!t(float64=12): 12');
      expect(lines[1]).toMatch(/^catalog\.json:5: json: cannot unmarshal array into Go value of type map\[string\]interface \{\}/);
      // The bundle after the first error was read and validated.
      expect(r.stderr).toContain('package "foo" bundle "foo.v1" image: invalid image pull spec "quay.io/x/Foo:v1"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a too deeply nested file by file and line and validates the others', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'validate-deep-'));
    try {
      await writeFile(join(dir, 'a.json'), '{"schema":"olm.package","name":"foo"}\n');
      await writeFile(join(dir, 'b.json'), `{"schema":"x","v":${'['.repeat(100_000)}${']'.repeat(100_000)}}\n`);
      await writeFile(join(dir, 'c.yaml'), `schema: x\nv: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
      await writeFile(join(dir, 'd.json'), '{"schema":"olm.package","name":"Bar"}\n');
      const r = await run(dir);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n').slice(0, 3)).toEqual([
        "b.json:1: json: offset 1018: invalid character '[' exceeded max depth",
        'c.yaml:2: error converting YAML to JSON: yaml: line 2: exceeded max depth of 1000',
        expect.stringContaining('invalid package name "Bar"'),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('applies the size limits given as flags', async () => {
    const r = await run(`${TESTDATA}valid`, '--max-document-bytes=100');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bar\/catalog\.yaml:\d+: document exceeds the limit of 100 bytes\n/);
    const all = await run(`${TESTDATA}valid`, '--max-catalog-bytes', '1Ki');
    expect(all.code).toBe(1);
    expect(all.stderr).toMatch(/^Error: reading catalog ".*": [^ ]+: catalog exceeds the limit of 1024 bytes\n$/);
  });

  it('prints help', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: olmv1 catalog validate <directory> \[-o json\|yaml\]/);
  });
});

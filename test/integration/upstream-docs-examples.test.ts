// Every ClusterExtension example of upstream's documentation (test/fixtures/upstream-docs: one
// file per YAML block, byte for byte) on a real kube-apiserver. Each is created for real with
// strict field validation, as `kubectl apply`/`create` send it, and deleted again. The same
// object also goes to upstream's own CRD (experimental, served beside ours under another group),
// so every verdict below is upstream's too: the blocks upstream's pages get wrong are refused by
// both, with the same causes, and ours adds only the release-name rule of decision 0072.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION, GROUP, RELEASE_NAME_MESSAGE, VERSION } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { type ApiResponse, causes, type Cause, send, useCrds } from '../support/crd-admission.ts';
import {
  fillPlaceholders,
  isTemplate,
  type DocExample,
  UPSTREAM_CRD_GROUP,
  UPSTREAM_CRD_PATH,
  upstreamDocExamples,
} from '../support/upstream-docs.ts';
import { kubectlWaitEstablished } from '../support/crd-established.ts';

useCrds();

const exec = promisify(execFile);
const UPSTREAM_CRD = `${CLUSTER_EXTENSION.plural}.${UPSTREAM_CRD_GROUP}`;

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  const base = ['--kubeconfig', cp.kubeconfigPath];
  await exec(cp.kubectl, [...base, 'apply', '--server-side', '--force-conflicts', '-f', UPSTREAM_CRD_PATH]);
  await kubectlWaitEstablished((args) => exec(cp.kubectl, [...base, ...args]), [`crd/${UPSTREAM_CRD}`]);
});

afterAll(async () => {
  await send('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${UPSTREAM_CRD}`);
});

/** What both CRDs answer to an example as written. */
type Verdict =
  | 'admitted'
  /** 422 with causes on these fields; `template`: the causes are its `<placeholders>`, and filled in it is admitted. */
  | { refused: string[]; template?: true }
  /** 400 from strict field validation: the CRD has no such field; without it (pruned), `then`. */
  | { unknownField: string; then: Verdict };

// Upstream's CRD requires spec.config.configType (api/v1/clusterextension_types.go: `+required`,
// the union discriminator); these draft pages omit it. The API server then reports the missing
// field and that CEL rules were skipped (`<nil>`).
const NO_CONFIG_TYPE: Verdict = { refused: ['<nil>', 'spec.config.configType'] };

const VERDICTS: Record<string, Verdict> = {
  'config/samples/olm_v1_clusterextension': 'admitted',
  'docs/concepts/controlling-catalog-selection-1': 'admitted',
  'docs/concepts/controlling-catalog-selection-2': 'admitted',
  'docs/concepts/controlling-catalog-selection-3': 'admitted',
  'docs/concepts/controlling-catalog-selection-4': 'admitted',
  'docs/concepts/controlling-catalog-selection-5': 'admitted',
  'docs/concepts/controlling-catalog-selection-6': 'admitted',
  'docs/concepts/crd-upgrade-safety-1': 'admitted',
  'docs/concepts/upgrade-support-1': {
    refused: ['metadata.name', 'spec.namespace', 'spec.source.catalog.packageName', 'spec.source.catalog.version'],
    template: true,
  },
  'docs/concepts/upgrade-support-2': 'admitted',
  'docs/draft/howto/configure-bundles-1': 'admitted',
  'docs/draft/howto/configure-bundles-2': 'admitted',
  'docs/draft/howto/configure-bundles-3': 'admitted',
  'docs/draft/howto/customize-operator-deployments-1': NO_CONFIG_TYPE,
  'docs/draft/howto/customize-operator-deployments-2': NO_CONFIG_TYPE,
  // `channel: stable` where the API has `channels`; strict decoding fails before the schema is
  // checked, and pruned (`--validate=false`) the field leaves configType missing.
  'docs/draft/howto/customize-operator-deployments-3': { unknownField: 'spec.source.catalog.channel', then: NO_CONFIG_TYPE },
  'docs/draft/howto/single-ownnamespace-install-1': NO_CONFIG_TYPE,
  'docs/draft/howto/single-ownnamespace-install-2': NO_CONFIG_TYPE,
  'docs/howto/how-to-channel-based-upgrades-1': 'admitted',
  'docs/howto/how-to-channel-based-upgrades-2': 'admitted',
  'docs/howto/how-to-pin-version-1': 'admitted',
  'docs/howto/how-to-version-range-upgrades-1': 'admitted',
  'docs/howto/how-to-z-stream-upgrades-1': 'admitted',
  'docs/tutorials/downgrade-extension-1': 'admitted',
  'docs/tutorials/downgrade-extension-2': 'admitted',
  'docs/tutorials/downgrade-extension-3': { refused: ['spec.source.catalog.version'], template: true },
  'docs/tutorials/install-extension-1': {
    refused: [
      'metadata.name',
      'spec.namespace',
      'spec.source.catalog.channels[0]',
      'spec.source.catalog.channels[1]',
      'spec.source.catalog.packageName',
      'spec.source.catalog.version',
    ],
    template: true,
  },
  'docs/tutorials/upgrade-extension-1': 'admitted',
  'docs/tutorials/upgrade-extension-2': 'admitted',
};

type Crd = 'ours' | 'upstream';
const GROUPS: Record<Crd, string> = { ours: GROUP, upstream: UPSTREAM_CRD_GROUP };

/**
 * Creates `obj` for real under `crd` with `fieldValidation` (Strict, as kubectl sends it, unless
 * told) and deletes it again when admitted (no controller runs here, so no finalizer holds it).
 * The names are the examples' own: an object already there fails the test rather than passing
 * for a verdict.
 */
async function createAndDelete(obj: KubeObject, crd: Crd, fieldValidation = 'Strict'): Promise<ApiResponse> {
  const collection = `/apis/${GROUPS[crd]}/${VERSION}/${CLUSTER_EXTENSION.plural}`;
  const res = await send('POST', `${collection}?fieldValidation=${fieldValidation}`, { ...obj, apiVersion: `${GROUPS[crd]}/${VERSION}` });
  expect(res.status, `${obj.metadata.name} already exists`).not.toBe(409);
  if (res.status === 201) {
    const del = await send('DELETE', `${collection}/${obj.metadata.name}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
  }
  return res;
}

/** Both CRDs' answers to `obj`. */
async function bothAnswer(obj: KubeObject, fieldValidation?: string): Promise<Record<Crd, ApiResponse>> {
  return { ours: await createAndDelete(obj, 'ours', fieldValidation), upstream: await createAndDelete(obj, 'upstream', fieldValidation) };
}

/** Admitted, and stored with every field the example gave (strict validation prunes nothing silently). */
function expectAdmitted(res: ApiResponse, obj: KubeObject): void {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.spec).toMatchObject(obj.spec as object);
}

const fieldsOf = (cs: Cause[]): string[] => [...new Set(cs.map((c) => c.field ?? ''))].sort();
// The API server lists causes in no fixed order (rules of sibling fields come out in map order).
const sorted = (cs: Cause[]): string[] => cs.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).sort();

/** Both CRDs give `example` the `verdict`, created with `fieldValidation`. */
async function expectVerdict(example: DocExample, verdict: Verdict, fieldValidation = 'Strict'): Promise<void> {
  const obj = example.extension;
  const answers = await bothAnswer(obj, fieldValidation);
  if (verdict === 'admitted') {
    expect(isTemplate(example)).toBe(false);
    expectAdmitted(answers.ours, obj);
    expectAdmitted(answers.upstream, obj);
  } else if ('refused' in verdict) {
    expect(isTemplate(example)).toBe(verdict.template === true);
    for (const res of Object.values(answers)) {
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(fieldsOf(causes(res))).toEqual(verdict.refused);
    }
    // The same causes, word for word, but for our rule that the name must be a release name.
    const ours = causes(answers.ours).filter((c) => !(c.message ?? '').includes(RELEASE_NAME_MESSAGE));
    expect(sorted(ours)).toEqual(sorted(causes(answers.upstream)));
    if (verdict.template === true) await expectVerdict(fillPlaceholders(example), 'admitted');
  } else {
    for (const res of Object.values(answers)) {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toContain(`strict decoding error: unknown field "${verdict.unknownField}"`);
    }
    // What `kubectl apply --validate=false` gets from either: the field pruned, the rest judged.
    await expectVerdict(example, verdict.then, 'Ignore');
  }
}

const examples = upstreamDocExamples();

describe('upstream documentation examples', () => {
  it('each has a verdict, and each verdict an example', () => {
    expect(examples.map((e) => e.id)).toEqual(Object.keys(VERDICTS).sort());
  });

  it.each(examples.map((e) => [e.id, e] as const))('%s', async (id, example: DocExample) => {
    const verdict = VERDICTS[id];
    if (verdict === undefined) expect.fail(`no verdict for ${id}`);
    await expectVerdict(example, verdict);
  });
});

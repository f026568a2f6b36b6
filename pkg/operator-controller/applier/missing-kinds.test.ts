import { describe, expect, it } from 'vitest';
import { ApplyError } from './apply-error.ts';
import { missingKindsMessage, missingKindsRefusal, type MissingKind } from './missing-kinds.ts';

// Expected texts written by hand from upstream's sources: cli-runtime's resource mapper (one
// object), apimachinery's utilerrors Aggregate (several), helm-operator-plugins'
// chainedPostRenderer and Helm's renderResources (the prefix).
const POST = 'error while running post render on files: postrenderer[0] (*client.ownerPostRenderer) failed: ';
const issuerReason = 'no matches for kind "Issuer" in version "cert-manager.io/v1"';
const certReason = 'no matches for kind "Certificate" in version "cert-manager.io/v1"';
const vpaReason = 'no matches for kind "VerticalPodAutoscaler" in version "autoscaling.k8s.io/v1"';
const issuer: MissingKind = { name: 'op-selfsigned-issuer', namespace: 'op-system', reason: issuerReason };
const cert: MissingKind = { name: 'op-service-cert', namespace: 'op-system', reason: certReason };
const vpa: MissingKind = { name: 'op-vpa', namespace: '', reason: vpaReason };

describe('missingKindsMessage', () => {
  it.each<[string, MissingKind[], string]>([
    [
      'one object: no brackets',
      [issuer],
      POST +
        'resource mapping not found for name: "op-selfsigned-issuer" namespace: "op-system" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first',
    ],
    [
      'a cluster-scoped object, or one without a namespace: namespace ""',
      [vpa],
      POST +
        'resource mapping not found for name: "op-vpa" namespace: "" from "": no matches for kind "VerticalPodAutoscaler" in version "autoscaling.k8s.io/v1"\nensure CRDs are installed first',
    ],
    [
      'several kinds: all, in the order given, bracketed and joined with ", "',
      [cert, issuer],
      POST +
        '[resource mapping not found for name: "op-service-cert" namespace: "op-system" from "": no matches for kind "Certificate" in version "cert-manager.io/v1"\nensure CRDs are installed first, ' +
        'resource mapping not found for name: "op-selfsigned-issuer" namespace: "op-system" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first]',
    ],
    [
      'one kind missing for several objects: each object listed',
      [issuer, { ...issuer, name: 'other-issuer' }, { ...issuer, namespace: 'elsewhere' }],
      POST +
        '[resource mapping not found for name: "op-selfsigned-issuer" namespace: "op-system" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first, ' +
        'resource mapping not found for name: "other-issuer" namespace: "op-system" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first, ' +
        'resource mapping not found for name: "op-selfsigned-issuer" namespace: "elsewhere" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first]',
    ],
    [
      'the same text twice (same name, namespace and kind): listed once, in the first place',
      [issuer, vpa, issuer],
      POST +
        '[resource mapping not found for name: "op-selfsigned-issuer" namespace: "op-system" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first, ' +
        'resource mapping not found for name: "op-vpa" namespace: "" from "": no matches for kind "VerticalPodAutoscaler" in version "autoscaling.k8s.io/v1"\nensure CRDs are installed first]',
    ],
    [
      'several errors of one text: that text alone, without brackets',
      [vpa, vpa],
      POST +
        'resource mapping not found for name: "op-vpa" namespace: "" from "": no matches for kind "VerticalPodAutoscaler" in version "autoscaling.k8s.io/v1"\nensure CRDs are installed first',
    ],
    [
      "names quoted as Go's %q does",
      [{ name: 'a"b\\c', namespace: 'ns', reason: issuerReason }],
      POST +
        'resource mapping not found for name: "a\\"b\\\\c" namespace: "ns" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first',
    ],
  ])('%s', (_name, missing, expected) => {
    expect(missingKindsMessage(missing)).toBe(expected);
  });
});

describe('missingKindsRefusal', () => {
  it("is an ApplyError on the first object, with operator-controller's dry-run prefix", () => {
    const cause = new Error('cause');
    const err = missingKindsRefusal('Certificate op-system/op-service-cert', [cert, issuer], cause);
    expect(err).toBeInstanceOf(ApplyError);
    expect(err.object).toBe('Certificate op-system/op-service-cert');
    expect(err.cause).toBe(cause);
    expect(err.message).toBe(`failed to get release state using server-side dry-run: ${missingKindsMessage([cert, issuer])}`);
  });
});

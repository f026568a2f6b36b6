/**
 * The release's install.sh (pure template): as upstream's install script does, it applies the
 * release manifest, waits for the CRDs and both Deployments, and adds a catalog when asked; it
 * installs nothing else: cert-manager must be there already (checked), and the manifest's
 * SHA-256, fixed when the release was made, is checked before anything is applied. With
 * `OLMV1_VERIFY_KEY`, the pinned image's cosign signature is verified first too (cosign on PATH):
 * missing or wrong, nothing is applied. With `OLMV1_INSECURE_REGISTRIES`, registries both
 * components reach over plain HTTP are written, before the manifest is applied, as a
 * registries.conf drop-in into the ConfigMap the manifest's Deployments mount (manifest.ts).
 * Before anything is applied, the project's CRDs on the cluster are checked against the
 * release's (crd-check.ts, decision 0154): a release that would not serve a stored or served
 * version, or would prune a field, is refused with a message (OLMV1_ALLOW_CRD_CHANGE=true
 * overrides; OLMV1_CHECK_CRDS_ONLY=true checks and stops).
 */
import { DEPLOYMENTS, SYSTEM_NAMESPACE } from '../in-cluster/index.ts';
import { CRD_FACTS_TEMPLATE } from './crd-check.ts';
import { REGISTRIES_CONF_CONFIGMAP } from './manifest.ts';

/** The key install.sh writes into REGISTRIES_CONF_CONFIGMAP for OLMV1_INSECURE_REGISTRIES. */
const INSECURE_DROP_IN = '50-insecure-registries.conf';

/** What {@link renderInstallScript} bakes in. */
interface InstallScriptInput {
  version: string;
  /** The manifest's file name beside the script (`olmv1.yaml`). */
  manifestName: string;
  /** The manifest's SHA-256 (hex). */
  manifestSha256: string;
  /** The project image the manifest pins (`HOST/REPO@sha256:<hex>`), whose signature OLMV1_VERIFY_KEY checks. */
  imageRef: string;
  /** The project's CRDs in the manifest and what they provide (crd-check.ts, manifestCrdProvisions). */
  crdCheck: { crds: string[]; lines: string[] };
}

/** Only characters a single-quoted shell word holds safely, so that no value escapes its quotes. */
function shellSafe(label: string, value: string): string {
  if (!/^[A-Za-z0-9._:/@+-]+$/.test(value)) throw new Error(`${label} ${JSON.stringify(value)} holds characters the install script does not take`);
  return value;
}

/** install.sh's text. Throws when a value holds shell-unsafe characters. */
export function renderInstallScript(input: InstallScriptInput): string {
  const version = shellSafe('version', input.version);
  const manifest = shellSafe('manifest name', input.manifestName);
  if (!/^[0-9a-f]{64}$/.test(input.manifestSha256)) throw new Error(`not a SHA-256: ${input.manifestSha256}`);
  const image = shellSafe('image', input.imageRef);
  if (!/@sha256:[0-9a-f]{64}$/.test(image)) throw new Error(`not a digest reference: ${image}`);
  const crdNames = input.crdCheck.crds.map((c) => shellSafe('CRD name', c)).join(' ');
  for (const line of input.crdCheck.lines)
    if (!/^[A-Za-z0-9._[\]{}* -]+$/.test(line)) throw new Error(`CRD line ${JSON.stringify(line)} holds characters the install script does not take`);
  return `#!/usr/bin/env bash
# Installs olmv1 ${version} from its release manifest (${manifest}, beside this script, or
# OLMV1_MANIFEST). Needs kubectl and a cluster with cert-manager running.
#   OLMV1_MANIFEST=path             another copy of the manifest (its SHA-256 is still checked)
#   OLMV1_VERIFY_KEY=cosign.pub     verify the image's cosign signature with this public key
#                                   before anything is applied (needs cosign on PATH)
#   OLMV1_VERIFY_PLAIN_HTTP=true    the image's registry speaks plain HTTP (for that verification;
#                                   implied when that registry is in OLMV1_INSECURE_REGISTRIES)
#   OLMV1_INSECURE_REGISTRIES=h[:p],...
#                                   registries catalogd and operator-controller reach over plain
#                                   HTTP: written as ${INSECURE_DROP_IN} into the ConfigMap
#                                   ${REGISTRIES_CONF_CONFIGMAP}, which both mount as registries.conf.d
#   OLMV1_CATALOG_IMAGE=ref         add a ClusterCatalog from this catalog image
#   OLMV1_CATALOG_NAME=name         its name (default: operatorhubio)
#   OLMV1_TIMEOUT=duration          how long each wait may take (default: 300s)
#   OLMV1_CHECK_CRDS_ONLY=true      only check that this release's CRDs keep what the cluster's
#                                   hold (stored and served versions, fields), then stop
#   OLMV1_ALLOW_CRD_CHANGE=true     apply even when that check refuses (what it names may be lost)
set -euo pipefail
IFS=$'\\n\\t'

release_version='${version}'
manifest_sha256='${input.manifestSha256}'
image='${image}'
script_dir=$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)
manifest=\${OLMV1_MANIFEST:-"\${script_dir}/${manifest}"}
verify_key=\${OLMV1_VERIFY_KEY:-}
catalog_image=\${OLMV1_CATALOG_IMAGE:-}
catalog_name=\${OLMV1_CATALOG_NAME:-operatorhubio}
insecure_registries=\${OLMV1_INSECURE_REGISTRIES:-}
timeout=\${OLMV1_TIMEOUT:-300s}
namespace='${SYSTEM_NAMESPACE}'

fail() {
    echo "install.sh: $*" >&2
    exit 1
}

command -v kubectl >/dev/null 2>&1 || fail "kubectl is not on PATH"
[[ -f "\${manifest}" ]] || fail "no release manifest at \${manifest}"

# registries.conf entries for OLMV1_INSECURE_REGISTRIES, checked before anything else is done.
insecure_conf=''
image_plain_http=false
if [[ -n "\${insecure_registries}" ]]; then
    IFS=',' read -r -a insecure_hosts <<<"\${insecure_registries}"
    for host in "\${insecure_hosts[@]}"; do
        [[ "\${host}" =~ ^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:]+\\])(:[0-9]+)?$ ]] ||
            fail "OLMV1_INSECURE_REGISTRIES: '\${host}' is not a registry HOST[:PORT]"
        insecure_conf+="[[registry]]"$'\\n'"location = \\"\${host}\\""$'\\n'"insecure = true"$'\\n\\n'
        [[ "\${image%%/*}" != "\${host}" ]] || image_plain_http=true
    done
fi

actual_sha256=$(sha256sum "\${manifest}" | cut -d' ' -f1)
[[ "\${actual_sha256}" == "\${manifest_sha256}" ]] ||
    fail "\${manifest} is not the manifest of olmv1 \${release_version} (SHA-256 \${actual_sha256}, expected \${manifest_sha256})"

# The image's signature, when asked: cosign's simple-signing attachment, made without a
# transparency log (docs/release.md), checked against the image the manifest pins.
if [[ -n "\${verify_key}" ]]; then
    command -v cosign >/dev/null 2>&1 || fail "OLMV1_VERIFY_KEY needs cosign on PATH"
    [[ -f "\${verify_key}" ]] || fail "no public key at \${verify_key}"
    plain_http=()
    if [[ "\${OLMV1_VERIFY_PLAIN_HTTP:-}" == "true" || "\${image_plain_http}" == "true" ]]; then plain_http=(--allow-http-registry --allow-insecure-registry); fi
    echo "Verifying the signature of \${image} with \${verify_key}"
    cosign verify --key "\${verify_key}" --insecure-ignore-tlog=true \${plain_http[@]+"\${plain_http[@]}"} "\${image}" >/dev/null ||
        fail "\${image} has no signature that verifies with \${verify_key}: nothing was applied"
    echo "The signature of \${image} verifies with \${verify_key}"
fi

# The project's CRDs on the cluster, checked against this release's (docs/release.md, "Going back
# down"): every version they store or serve must be served, and every field of a served version's
# schema kept, or the apply is refused. The cluster's side is read with kubectl's go-template.
crd_provides='${input.crdCheck.lines.join('\n')}'
crd_facts_template='${CRD_FACTS_TEMPLATE}'
crd_requirements() {
    local crd facts line what version served name cur stack
    for crd in ${crdNames}; do
        facts=$(kubectl get crd "\${crd}" --ignore-not-found -o go-template="\${crd_facts_template}") ||
            fail "cannot read CRD \${crd} from the cluster: nothing was applied"
        version='' served=false cur='' stack=()
        while IFS= read -r line; do
            case "\${line}" in
            'version '*)
                IFS=' ' read -r what version served <<<"\${line}"
                cur='' stack=()
                [[ "\${served}" != true ]] || echo "served \${crd} \${version}"
                ;;
            'stored '*) echo "stored \${crd} \${line#stored }" ;;
            '+'*)
                name=\${line#+}
                stack+=("\${cur}")
                cur=\${cur:+\${cur}.}\${name}
                [[ "\${served}" != true ]] || echo "field \${crd} \${version} \${cur}"
                ;;
            '-')
                cur=\${stack[\${#stack[@]}-1]}
                unset 'stack[\${#stack[@]}-1]'
                ;;
            esac
        done <<<"\${facts}"
    done
}
crd_required=$(crd_requirements) || exit 1
crd_missing=$(LC_ALL=C comm -23 <(printf '%s\\n' "\${crd_required}" | LC_ALL=C sort -u) <(printf '%s\\n' "\${crd_provides}" | LC_ALL=C sort -u) | sed '/^$/d')
if [[ -n "\${crd_missing}" ]]; then
    refusal="olmv1 \${release_version} would not keep what the cluster's CRDs hold; nothing was applied:"
    # A version this release does not serve at all is one reason, not one per field of it.
    unserved=' '
    while IFS=' ' read -r what crd version rest; do
        [[ "\${what}" != served ]] || unserved+="\${crd}/\${version} "
    done <<<"\${crd_missing}"
    while IFS=' ' read -r what crd version rest; do
        [[ "\${what}" != field || "\${unserved}" != *" \${crd}/\${version} "* ]] || continue
        case "\${what}" in
        stored) refusal+=$'\\n'"  \${crd}: objects are stored at \${version} (status.storedVersions), which olmv1 \${release_version} does not serve" ;;
        served) refusal+=$'\\n'"  \${crd}: \${version} is served now, and olmv1 \${release_version} would stop serving it" ;;
        *) refusal+=$'\\n'"  \${crd} \${version}: field \${rest} is not in olmv1 \${release_version}'s schema (its values would be pruned)" ;;
        esac
    done <<<"\${crd_missing}"
    refusal+=$'\\n'"Apply a release whose CRDs keep these (the one installed, or a newer one). To go back to olmv1 \${release_version}, first migrate the objects to a version it serves and clear the fields it lacks (docs/release.md, \\"Going back down\\"); OLMV1_ALLOW_CRD_CHANGE=true applies it anyway."
    [[ "\${OLMV1_ALLOW_CRD_CHANGE:-}" == true ]] || fail "\${refusal}"
    echo "install.sh: OLMV1_ALLOW_CRD_CHANGE=true: applying anyway what this check refused:"$'\\n'"\${refusal}" >&2
fi
if [[ "\${OLMV1_CHECK_CRDS_ONLY:-}" == true ]]; then
    echo "The CRDs of olmv1 \${release_version} keep what the cluster's CRDs hold"
    exit 0
fi

# cert-manager issues both components' serving certificates and injects the webhook's CA.
kubectl get crd certificates.cert-manager.io issuers.cert-manager.io >/dev/null 2>&1 ||
    fail "cert-manager is not installed (its CRDs are missing): install it first"
kubectl wait --for=condition=Available --namespace=cert-manager --timeout="\${timeout}" \\
    deployment/cert-manager deployment/cert-manager-webhook deployment/cert-manager-cainjector ||
    fail "cert-manager's Deployments are not Available"

# Before the manifest, so that the Deployments' first Pods mount it (Pods already running see a
# change within the kubelet's sync period; both components re-read registries.conf at each pull).
if [[ -n "\${insecure_conf}" ]]; then
    echo "Writing \${insecure_registries} as plain-HTTP registries into ConfigMap ${REGISTRIES_CONF_CONFIGMAP}"
    kubectl create namespace "\${namespace}" --dry-run=client -o yaml |
        kubectl apply --server-side --field-manager=olmv1-install -f - >/dev/null
    kubectl create configmap ${REGISTRIES_CONF_CONFIGMAP} --namespace="\${namespace}" --dry-run=client -o yaml \\
        --from-literal=${INSECURE_DROP_IN}="# Written by install.sh from OLMV1_INSECURE_REGISTRIES."$'\\n\\n'"\${insecure_conf}" |
        kubectl apply --server-side --field-manager=olmv1-install -f - >/dev/null
fi

echo "Applying olmv1 \${release_version}"
kubectl apply --server-side --force-conflicts -f "\${manifest}"

kubectl wait --for=condition=Established --timeout="\${timeout}" \\
    crd/clustercatalogs.olm.operatorframework.io crd/clusterextensions.olm.operatorframework.io
${DEPLOYMENTS.map((d) => `kubectl rollout status --namespace="\${namespace}" --timeout="\${timeout}" deployment/${d}`).join('\n')}

if [[ -n "\${catalog_image}" ]]; then
    echo "Adding ClusterCatalog \${catalog_name} (\${catalog_image})"
    kubectl apply --server-side -f - <<CATALOG
apiVersion: olm.operatorframework.io/v1
kind: ClusterCatalog
metadata:
  name: \${catalog_name}
spec:
  source:
    type: Image
    image:
      ref: \${catalog_image}
CATALOG
    kubectl wait --for=condition=Serving --timeout="\${timeout}" "clustercatalog/\${catalog_name}"
fi

echo "olmv1 \${release_version} is installed"
`;
}

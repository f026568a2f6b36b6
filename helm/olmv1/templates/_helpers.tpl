{{- /*
Shared pieces of the olmv1 chart's templates.
*/ -}}

{{- /*
The namespace both components run in (config/namespace.yaml). Also where the chart refuses
values that contradict each other.
*/ -}}
{{- define "olmv1.namespace" -}}
{{- if and .Values.options.certManager.enabled .Values.options.openshift.enabled }}
{{- fail "options.certManager.enabled and options.openshift.enabled: choose one; both would write the Secrets catalogd-service-cert and operator-controller-cert" }}
{{- end }}
{{- .Values.namespaces.olmv1.name }}
{{- end -}}

{{- /*
A component's --feature-gates and extra arguments, one list item a line, for the end of its
container's args. Call with (dict "component" .Values.options.<component>).
*/ -}}
{{- define "olmv1.extraArgs" -}}
{{- range .component.features.enabled }}
- --feature-gates={{ . }}=true
{{- end }}
{{- range .component.features.disabled }}
- --feature-gates={{ . }}=false
{{- end }}
{{- range .component.deployment.extraArguments }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{- /* The environment of both containers (cmd/<binary>/node-flags.ts: allocator settings). */ -}}
{{- define "olmv1.env" -}}
- name: GLIBC_TUNABLES
  value: glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=32768:glibc.malloc.trim_threshold=32768:glibc.malloc.top_pad=0
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- end -}}

{{- /* Pod and container hardening of both Deployments. */ -}}
{{- define "olmv1.podSecurityContext" -}}
runAsNonRoot: true
seccompProfile:
  type: RuntimeDefault
{{- end -}}
{{- define "olmv1.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}

{{- /*
config/openshift/registry-access.yaml: a component's ca-certs volume on OpenShift (after the
volume's name), the directory of --pull-cas-dir: the cluster's trusted CA bundle (the
component's ConfigMap in templates/openshift.yaml) and the service CA, which is also the CA of
operator-controller's --catalogd-ca-file. Call with the component's name.
*/ -}}
{{- define "olmv1.openshiftCaCerts" -}}
projected:
  sources:
    - configMap:
        name: {{ . }}-trusted-ca-bundle
        items:
          - key: ca-bundle.crt
            path: ca-bundle.crt
    - configMap:
        name: openshift-service-ca.crt
        items:
          - key: service-ca.crt
            path: ca.crt
{{- end -}}

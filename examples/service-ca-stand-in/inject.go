package main

import (
	"encoding/base64"
	"fmt"
	"log"
	"strings"
)

const (
	injectBeta  = "service.beta.openshift.io/inject-cabundle"
	injectAlpha = "service.alpha.openshift.io/inject-cabundle"
	// The ConfigMap key the bundle is written under.
	injectionKey = "service-ca.crt"
)

// injector writes the CA bundle into objects that ask for it with the inject-cabundle
// annotation ("true", any case). ConfigMaps and APIServices accept the alpha annotation too;
// webhook configurations and CRDs the beta one only, as service-ca-operator does. An object
// without the annotation is never written.
type injector struct {
	kube   *kubeClient
	bundle []byte
}

// kind is one resource the injector serves: where to list it and how to inject into one.
type kind struct {
	name   string
	list   string
	alpha  bool
	inject func(o object, bundle []byte) bool
}

var kinds = []kind{
	{"ConfigMap", "/api/v1/configmaps", true, injectConfigMap},
	{"CustomResourceDefinition", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", false, injectCRD},
	{"ValidatingWebhookConfiguration", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", false, injectWebhooks},
	{"MutatingWebhookConfiguration", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", false, injectWebhooks},
	{"APIService", "/apis/apiregistration.k8s.io/v1/apiservices", true, injectAPIService},
}

func (in *injector) syncAll() error {
	for _, k := range kinds {
		objects, err := in.kube.list(k.list)
		if err != nil {
			return fmt.Errorf("listing %ss: %w", k.name, err)
		}
		for _, o := range objects {
			if !wantsBundle(o, k.alpha) {
				continue
			}
			if !k.inject(o, in.bundle) {
				continue
			}
			// ConfigMaps are the one namespaced kind here.
			path := k.list + "/" + str(o, "metadata", "name")
			if ns := str(o, "metadata", "namespace"); ns != "" {
				path = fmt.Sprintf("/api/v1/namespaces/%s/configmaps/%s", ns, str(o, "metadata", "name"))
			}
			log.Printf("injecting the CA bundle into %s %s", k.name, path)
			if err := in.kube.update(path, o); err != nil {
				log.Printf("%s %s: %v", k.name, path, err)
			}
		}
	}
	return nil
}

func wantsBundle(o object, alpha bool) bool {
	return strings.EqualFold(annotation(o, injectBeta), "true") || (alpha && strings.EqualFold(annotation(o, injectAlpha), "true"))
}

// injectConfigMap makes the bundle the ConfigMap's only data, under injectionKey.
func injectConfigMap(cm object, bundle []byte) bool {
	data := field(cm, "data")
	if len(data) == 1 && data[injectionKey] == string(bundle) {
		return false
	}
	cm["data"] = object{injectionKey: string(bundle)}
	return true
}

// injectCRD sets spec.conversion.webhook.clientConfig.caBundle of a CRD converted by a webhook;
// a CRD without webhook conversion is left as it is.
func injectCRD(crd object, bundle []byte) bool {
	caBundle := base64.StdEncoding.EncodeToString(bundle)
	if str(crd, "spec", "conversion", "strategy") != "Webhook" {
		return false
	}
	clientConfig := field(crd, "spec", "conversion", "webhook", "clientConfig")
	if clientConfig == nil || clientConfig["caBundle"] == caBundle {
		return false
	}
	clientConfig["caBundle"] = caBundle
	return true
}

// injectWebhooks sets clientConfig.caBundle of every webhook of a webhook configuration.
func injectWebhooks(config object, bundle []byte) bool {
	caBundle := base64.StdEncoding.EncodeToString(bundle)
	webhooks, _ := config["webhooks"].([]any)
	changed := false
	for _, w := range webhooks {
		clientConfig := field(w.(map[string]any), "clientConfig")
		if clientConfig != nil && clientConfig["caBundle"] != caBundle {
			clientConfig["caBundle"] = caBundle
			changed = true
		}
	}
	return changed
}

func injectAPIService(apiService object, bundle []byte) bool {
	caBundle := base64.StdEncoding.EncodeToString(bundle)
	spec := field(apiService, "spec")
	if spec == nil || spec["caBundle"] == caBundle {
		return false
	}
	spec["caBundle"] = caBundle
	return true
}

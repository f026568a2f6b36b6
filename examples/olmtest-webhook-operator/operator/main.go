// Command manager is a stand-in, written here, for the operator image upstream OLM v1's e2e
// scenario "Install operator having webhooks" installs (its bundle names
// quay.io/olmtest/webhook-operator:0.0.4; no public registry is reachable here). It behaves as
// that operator does for the scenario, learned from its documentation and tests, for the
// WebhookTest CRD (webhook.operators.coreos.io, v1 the storage and hub version, v2):
//   - /mutate-webhook-operators-coreos-io-v1-webhooktest sets spec.mutate to true;
//   - /validate-webhook-operators-coreos-io-v1-webhooktest refuses spec.valid false with an
//     Invalid status whose message reads `... spec.valid: Invalid value: false: Spec.Valid must
//     be true` (the form of apimachinery's field.Invalid; upstream's names the field
//     spec.schedule and the group test.operators.coreos.com, the scenario reads only the tail);
//   - /convert converts between v1 (spec.valid, spec.mutate) and v2 (spec.conversion.valid,
//     spec.conversion.mutate).
//
// Webhooks over HTTPS on :9443 with the certificate in --webhook-cert-path (controller-runtime's
// default directory, read again on each handshake); /healthz and /readyz on
// --health-probe-bind-address, ready once that certificate loads. --leader-elect is accepted
// and has no effect: the program keeps no state to elect a leader for. The standard library only.
package main

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

const group = "webhook.operators.coreos.io"

type object = map[string]any

// status is the part of meta/v1 Status a webhook answers with.
type status struct {
	Status  string         `json:"status"`
	Message string         `json:"message,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	Code    int            `json:"code,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// review is the part of admission.k8s.io/v1 AdmissionReview and apiextensions.k8s.io/v1
// ConversionReview used here (both carry apiVersion, kind, request and response).
type review struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID               string   `json:"uid"`
		Object            object   `json:"object"`
		DesiredAPIVersion string   `json:"desiredAPIVersion"`
		Objects           []object `json:"objects"`
	} `json:"request,omitempty"`
	Response map[string]any `json:"response,omitempty"`
}

func specOf(o object) object {
	spec, _ := o["spec"].(object)
	return spec
}

// mutate answers with a JSON patch that sets spec.mutate (and spec, when absent).
func mutate(o object) map[string]any {
	op := map[string]any{"op": "add", "path": "/spec/mutate", "value": true}
	if specOf(o) == nil {
		op = map[string]any{"op": "add", "path": "/spec", "value": object{"mutate": true}}
	}
	patch, _ := json.Marshal([]any{op})
	return map[string]any{"allowed": true, "patchType": "JSONPatch", "patch": patch}
}

// validate refuses a WebhookTest whose spec.valid is not true.
func validate(o object) map[string]any {
	if v, _ := specOf(o)["valid"].(bool); v {
		return map[string]any{"allowed": true}
	}
	metadata, _ := o["metadata"].(object)
	name, _ := metadata["name"].(string)
	cause := "Invalid value: false: Spec.Valid must be true"
	return map[string]any{"allowed": false, "status": status{
		Status:  "Failure",
		Message: fmt.Sprintf("WebhookTest.%s %q is invalid: spec.valid: %s", group, name, cause),
		Reason:  "Invalid",
		Code:    http.StatusUnprocessableEntity,
		Details: map[string]any{
			"name": name, "group": group, "kind": "WebhookTest",
			"causes": []any{map[string]any{"reason": "FieldValueInvalid", "message": cause, "field": "spec.valid"}},
		},
	}}
}

// convert returns o at apiVersion `to`; fields absent on one side stay absent on the other.
func convert(o object, to string) (object, error) {
	out := object{}
	for k, v := range o {
		out[k] = v
	}
	spec := object{}
	for k, v := range specOf(o) {
		spec[k] = v
	}
	switch to {
	case group + "/v1":
		if c, ok := spec["conversion"].(object); ok {
			delete(spec, "conversion")
			for _, k := range []string{"valid", "mutate"} {
				if v, ok := c[k]; ok {
					spec[k] = v
				}
			}
		}
	case group + "/v2":
		c := object{}
		for _, k := range []string{"valid", "mutate"} {
			if v, ok := spec[k]; ok {
				c[k] = v
				delete(spec, k)
			}
		}
		if _, ok := spec["conversion"]; !ok {
			spec["conversion"] = c
		}
	default:
		return nil, fmt.Errorf("cannot convert to %q", to)
	}
	out["apiVersion"] = to
	out["spec"] = spec
	return out, nil
}

func conversion(r *review) map[string]any {
	converted := []object{}
	for _, o := range r.Request.Objects {
		c, err := convert(o, r.Request.DesiredAPIVersion)
		if err != nil {
			return map[string]any{"uid": r.Request.UID, "result": status{Status: "Failure", Message: err.Error()}}
		}
		converted = append(converted, c)
	}
	return map[string]any{"uid": r.Request.UID, "convertedObjects": converted, "result": status{Status: "Success"}}
}

// handler decodes a review, answers it with respond and writes it back.
func handler(respond func(*review) map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var rv review
		if err := json.NewDecoder(r.Body).Decode(&rv); err != nil || rv.Request == nil {
			http.Error(w, "expected an AdmissionReview or a ConversionReview", http.StatusBadRequest)
			return
		}
		rv.Response = respond(&rv)
		rv.Response["uid"] = rv.Request.UID
		rv.Request = nil
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(rv); err != nil {
			log.Printf("writing the response: %v", err)
		}
	}
}

func main() {
	probeAddr := flag.String("health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	certDir := flag.String("webhook-cert-path", "/tmp/k8s-webhook-server/serving-certs", "directory holding tls.crt and tls.key")
	flag.Bool("leader-elect", false, "accepted; no effect")
	flag.Parse()
	loadCert := func() (*tls.Certificate, error) {
		cert, err := tls.LoadX509KeyPair(filepath.Join(*certDir, "tls.crt"), filepath.Join(*certDir, "tls.key"))
		return &cert, err
	}

	health := http.NewServeMux()
	health.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	health.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if _, err := loadCert(); err != nil {
			http.Error(w, errors.Join(errors.New("no serving certificate"), err).Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	go func() {
		log.Fatal((&http.Server{Addr: *probeAddr, Handler: health, ReadHeaderTimeout: 10 * time.Second}).ListenAndServe())
	}()

	mux := http.NewServeMux()
	mux.HandleFunc("/mutate-webhook-operators-coreos-io-v1-webhooktest", handler(func(r *review) map[string]any { return mutate(r.Request.Object) }))
	mux.HandleFunc("/validate-webhook-operators-coreos-io-v1-webhooktest", handler(func(r *review) map[string]any { return validate(r.Request.Object) }))
	mux.HandleFunc("/convert", handler(conversion))
	server := &http.Server{
		Addr:              ":9443",
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{
			MinVersion:     tls.VersionTLS12,
			GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return loadCert() },
		},
	}
	log.Print("serving webhooks on :9443")
	if err := server.ListenAndServeTLS("", ""); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

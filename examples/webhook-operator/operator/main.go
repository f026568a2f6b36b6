// Command webhook-operator serves the webhooks of the Widget CRD (webhook.example.com), for
// trying OLM v1's webhook support: a conversion webhook between v1 (spec.valid) and v2
// (spec.conversion.valid), and a validating webhook that refuses a Widget that is not valid.
// It serves HTTPS on :9443 with the certificate OLM mounts at
// /tmp/k8s-webhook-server/serving-certs (read again on each handshake, so a renewed
// certificate is served without a restart), and /healthz and /readyz on :8080. The standard
// library only.
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// version is set at build time (-ldflags -X main.version=...); the refusal message names it.
var version = "dev"

type object = map[string]any

// conversionReview is the part of apiextensions.k8s.io/v1 ConversionReview used here.
type conversionReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID               string   `json:"uid"`
		DesiredAPIVersion string   `json:"desiredAPIVersion"`
		Objects           []object `json:"objects"`
	} `json:"request,omitempty"`
	Response *conversionResponse `json:"response,omitempty"`
}

type conversionResponse struct {
	UID              string   `json:"uid"`
	ConvertedObjects []object `json:"convertedObjects"`
	Result           status   `json:"result"`
}

type status struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

// admissionReview is the part of admission.k8s.io/v1 AdmissionReview used here.
type admissionReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID    string `json:"uid"`
		Object object `json:"object"`
	} `json:"request,omitempty"`
	Response *admissionResponse `json:"response,omitempty"`
}

type admissionResponse struct {
	UID     string  `json:"uid"`
	Allowed bool    `json:"allowed"`
	Result  *status `json:"status,omitempty"`
}

// valid reads spec.valid (v1) or spec.conversion.valid (v2); absent means valid.
func valid(o object) bool {
	spec, _ := o["spec"].(object)
	if spec == nil {
		return true
	}
	if v, ok := spec["valid"].(bool); ok {
		return v
	}
	if c, ok := spec["conversion"].(object); ok {
		if v, ok := c["valid"].(bool); ok {
			return v
		}
	}
	return true
}

// convert returns o at apiVersion `to` (webhook.example.com/v1 or /v2).
func convert(o object, to string) (object, error) {
	out := object{}
	for k, v := range o {
		out[k] = v
	}
	spec, _ := o["spec"].(object)
	newSpec := object{}
	for k, v := range spec {
		if k != "valid" && k != "conversion" {
			newSpec[k] = v
		}
	}
	switch to {
	case "webhook.example.com/v1":
		newSpec["valid"] = valid(o)
	case "webhook.example.com/v2":
		newSpec["conversion"] = object{"valid": valid(o)}
	default:
		return nil, fmt.Errorf("unknown apiVersion %q", to)
	}
	out["apiVersion"] = to
	out["spec"] = newSpec
	return out, nil
}

func handleConvert(w http.ResponseWriter, r *http.Request) {
	var review conversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "expected a ConversionReview", http.StatusBadRequest)
		return
	}
	resp := &conversionResponse{UID: review.Request.UID, Result: status{Status: "Success"}}
	for _, o := range review.Request.Objects {
		c, err := convert(o, review.Request.DesiredAPIVersion)
		if err != nil {
			resp.ConvertedObjects = nil
			resp.Result = status{Status: "Failure", Message: err.Error()}
			break
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, c)
	}
	review.Request = nil
	review.Response = resp
	writeJSON(w, review)
}

func handleValidate(w http.ResponseWriter, r *http.Request) {
	var review admissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "expected an AdmissionReview", http.StatusBadRequest)
		return
	}
	resp := &admissionResponse{UID: review.Request.UID, Allowed: valid(review.Request.Object)}
	if !resp.Allowed {
		resp.Result = &status{Status: "Failure", Code: http.StatusForbidden, Message: fmt.Sprintf("webhook-operator %s: this Widget is not valid", version)}
	}
	review.Request = nil
	review.Response = resp
	writeJSON(w, review)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("writing the response: %v", err)
	}
}

func main() {
	certDir := flag.String("cert-dir", "/tmp/k8s-webhook-server/serving-certs", "directory holding tls.crt and tls.key")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println(version)
		return
	}
	health := http.NewServeMux()
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }
	health.HandleFunc("/healthz", ok)
	health.HandleFunc("/readyz", ok)
	go func() {
		log.Fatal((&http.Server{Addr: ":8080", Handler: health, ReadHeaderTimeout: 10 * time.Second}).ListenAndServe())
	}()

	mux := http.NewServeMux()
	mux.HandleFunc("/convert", handleConvert)
	mux.HandleFunc("/validate", handleValidate)
	server := &http.Server{
		Addr:              ":9443",
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{
			MinVersion: tls.VersionTLS12,
			GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
				cert, err := tls.LoadX509KeyPair(filepath.Join(*certDir, "tls.crt"), filepath.Join(*certDir, "tls.key"))
				return &cert, err
			},
		},
	}
	log.Printf("webhook-operator %s serving webhooks on :9443", version)
	if err := server.ListenAndServeTLS("", ""); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

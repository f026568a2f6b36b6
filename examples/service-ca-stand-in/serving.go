package main

import (
	"encoding/base64"
	"fmt"
	"log"
	"strconv"
	"time"
)

// The annotations service-ca-operator reads and writes on Services and their Secrets, beta
// names first; the alpha names are read as well and written beside the beta ones, as it does.
const (
	servingSecretBeta   = "service.beta.openshift.io/serving-cert-secret-name"
	servingSecretAlpha  = "service.alpha.openshift.io/serving-cert-secret-name"
	signedByBeta        = "service.beta.openshift.io/serving-cert-signed-by"
	signedByAlpha       = "service.alpha.openshift.io/serving-cert-signed-by"
	errorBeta           = "service.beta.openshift.io/serving-cert-generation-error"
	errorAlpha          = "service.alpha.openshift.io/serving-cert-generation-error"
	errorNumBeta        = "service.beta.openshift.io/serving-cert-generation-error-num"
	errorNumAlpha       = "service.alpha.openshift.io/serving-cert-generation-error-num"
	originUIDBeta       = "service.beta.openshift.io/originating-service-uid"
	originUIDAlpha      = "service.alpha.openshift.io/originating-service-uid"
	originNameBeta      = "service.beta.openshift.io/originating-service-name"
	originNameAlpha     = "service.alpha.openshift.io/originating-service-name"
	expiryBeta          = "service.beta.openshift.io/expiry"
	expiryAlpha         = "service.alpha.openshift.io/expiry"
	maxServiceFailures  = 10
	renewWithTimeLeft   = time.Hour
	servingCertLifetime = 2 * 365 * 24 * time.Hour
)

// servingCerts keeps the serving certificate Secret of every annotated Service.
type servingCerts struct {
	kube      *kubeClient
	ca        *signer
	dnsSuffix string
	lifetime  time.Duration
}

func (s *servingCerts) syncAll() error {
	services, err := s.kube.list("/api/v1/services")
	if err != nil {
		return fmt.Errorf("listing Services: %w", err)
	}
	for _, svc := range services {
		if err := s.sync(svc); err != nil {
			log.Printf("Service %s/%s: %v", str(svc, "metadata", "namespace"), str(svc, "metadata", "name"), err)
		}
	}
	return nil
}

// sync issues or renews the Secret Service svc names. A Secret of that name that another
// Service or anyone else made is never changed: the Service is annotated with the error, and
// after maxServiceFailures attempts it is left alone.
func (s *servingCerts) sync(svc object) error {
	secretName := annotation(svc, servingSecretBeta)
	if secretName == "" {
		secretName = annotation(svc, servingSecretAlpha)
	}
	if secretName == "" || failures(svc) >= maxServiceFailures {
		return nil
	}
	ns, name, uid := str(svc, "metadata", "namespace"), str(svc, "metadata", "name"), str(svc, "metadata", "uid")
	subjects := servingSubjects(name, ns, str(svc, "spec", "clusterIP") == "None", s.dnsSuffix)
	secretPath := fmt.Sprintf("/api/v1/namespaces/%s/secrets/%s", ns, secretName)
	secret, err := s.kube.get(secretPath)
	switch {
	case isStatus(err, 404):
		secret = object{"apiVersion": "v1", "kind": "Secret", "metadata": object{"name": secretName, "namespace": ns}}
		if err := s.fill(secret, svc, subjects); err != nil {
			return err
		}
		log.Printf("issuing serving certificate Secret %s/%s for Service %s", ns, secretName, name)
		if err := s.kube.create(fmt.Sprintf("/api/v1/namespaces/%s/secrets", ns), secret); err != nil {
			return s.failed(svc, err)
		}
	case err != nil:
		return err
	case annotation(secret, originUIDBeta) != uid && annotation(secret, originUIDAlpha) != uid:
		return s.failed(svc, fmt.Errorf("secret %s/%s does not have corresponding service UID %s", ns, secretName, uid))
	case s.needsRenewal(secret, uid, subjects):
		if err := s.fill(secret, svc, subjects); err != nil {
			return err
		}
		log.Printf("renewing serving certificate Secret %s/%s for Service %s", ns, secretName, name)
		if err := s.kube.update(secretPath, secret); err != nil {
			return s.failed(svc, err)
		}
	}
	return s.succeeded(svc)
}

// needsRenewal: the certificate is missing or unreadable, not from this CA, for other names,
// close to its expiry (renewWithTimeLeft), or the Secret lost its owner reference.
func (s *servingCerts) needsRenewal(secret object, uid string, subjects []string) bool {
	certPEM, err := base64.StdEncoding.DecodeString(str(secret, "data", "tls.crt"))
	if err != nil || !s.ca.current(certPEM, subjects) || !ownedBy(secret, uid) {
		return true
	}
	expiry, err := time.Parse(time.RFC3339, annotation(secret, expiryBeta))
	return err != nil || time.Now().Add(renewWithTimeLeft).After(expiry)
}

// fill puts a new certificate for svc into secret, with the originating-service and expiry
// annotations and an owner reference to the Service (so the Secret goes with it).
func (s *servingCerts) fill(secret, svc object, subjects []string) error {
	certPEM, keyPEM, notAfter, err := s.ca.issue(subjects, s.lifetime, time.Now())
	if err != nil {
		return err
	}
	a := annotations(secret)
	name, uid := str(svc, "metadata", "name"), str(svc, "metadata", "uid")
	a[originUIDBeta], a[originUIDAlpha] = uid, uid
	a[originNameBeta], a[originNameAlpha] = name, name
	expiry := notAfter.UTC().Format(time.RFC3339)
	a[expiryBeta], a[expiryAlpha] = expiry, expiry
	secret["type"] = "kubernetes.io/tls"
	secret["data"] = object{"tls.crt": base64.StdEncoding.EncodeToString(certPEM), "tls.key": base64.StdEncoding.EncodeToString(keyPEM)}
	meta := field(secret, "metadata")
	if !ownedBy(secret, uid) {
		refs, _ := meta["ownerReferences"].([]any)
		meta["ownerReferences"] = append(refs, object{"apiVersion": "v1", "kind": "Service", "name": name, "uid": uid})
	}
	return nil
}

func ownedBy(o object, uid string) bool {
	refs, _ := field(o, "metadata")["ownerReferences"].([]any)
	for _, r := range refs {
		if ref, _ := r.(map[string]any); ref != nil && ref["uid"] == uid {
			return true
		}
	}
	return false
}

func failures(svc object) int {
	n, err := strconv.Atoi(annotation(svc, errorNumBeta))
	if err != nil {
		n, _ = strconv.Atoi(annotation(svc, errorNumAlpha))
	}
	return n
}

// failed records err on the Service (message and count) and returns it.
func (s *servingCerts) failed(svc object, cause error) error {
	a := annotations(svc)
	n := strconv.Itoa(failures(svc) + 1)
	a[errorBeta], a[errorAlpha] = cause.Error(), cause.Error()
	a[errorNumBeta], a[errorNumAlpha] = n, n
	if err := s.kube.update(servicePath(svc), svc); err != nil {
		log.Printf("recording the failure on Service %s: %v", str(svc, "metadata", "name"), err)
	}
	return cause
}

// succeeded names the CA on the Service and clears earlier errors, when that changes anything.
func (s *servingCerts) succeeded(svc object) error {
	a := annotations(svc)
	cn := s.ca.cert.Subject.CommonName
	if a[signedByBeta] == cn && a[signedByAlpha] == cn && a[errorBeta] == nil && a[errorAlpha] == nil && a[errorNumBeta] == nil && a[errorNumAlpha] == nil {
		return nil
	}
	a[signedByBeta], a[signedByAlpha] = cn, cn
	for _, k := range []string{errorBeta, errorAlpha, errorNumBeta, errorNumAlpha} {
		delete(a, k)
	}
	return s.kube.update(servicePath(svc), svc)
}

func servicePath(svc object) string {
	return fmt.Sprintf("/api/v1/namespaces/%s/services/%s", str(svc, "metadata", "namespace"), str(svc, "metadata", "name"))
}

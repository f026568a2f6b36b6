package main

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"slices"
	"time"
)

// signer is the service CA: a self-signed RSA certificate and its key, kept in a Secret of
// type kubernetes.io/tls in the stand-in's namespace so every replica and restart signs with
// the same CA. It is never rotated.
type signer struct {
	cert    *x509.Certificate
	key     *rsa.PrivateKey
	certPEM []byte
}

const caLifetime = 3 * 365 * 24 * time.Hour

// loadOrCreateSigner reads the CA from Secret namespace/name, creating it first when absent.
// Two replicas racing to create it both read the winner's.
func loadOrCreateSigner(c *kubeClient, namespace, name string) (*signer, error) {
	path := fmt.Sprintf("/api/v1/namespaces/%s/secrets/%s", namespace, name)
	secret, err := c.get(path)
	if isStatus(err, 404) {
		certPEM, keyPEM, genErr := newCA(time.Now())
		if genErr != nil {
			return nil, genErr
		}
		created := object{
			"apiVersion": "v1",
			"kind":       "Secret",
			"metadata":   object{"name": name, "namespace": namespace},
			"type":       "kubernetes.io/tls",
			"data":       object{"tls.crt": base64.StdEncoding.EncodeToString(certPEM), "tls.key": base64.StdEncoding.EncodeToString(keyPEM)},
		}
		if err := c.create(fmt.Sprintf("/api/v1/namespaces/%s/secrets", namespace), created); err != nil && !isStatus(err, 409) {
			return nil, fmt.Errorf("creating the CA Secret %s/%s: %w", namespace, name, err)
		}
		secret, err = c.get(path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the CA Secret %s/%s: %w", namespace, name, err)
	}
	certPEM, _ := base64.StdEncoding.DecodeString(str(secret, "data", "tls.crt"))
	keyPEM, _ := base64.StdEncoding.DecodeString(str(secret, "data", "tls.key"))
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("the CA Secret %s/%s: %w", namespace, name, err)
	}
	key, ok := pair.PrivateKey.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("the CA Secret %s/%s: not an RSA key", namespace, name)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	return &signer{cert: cert, key: key, certPEM: pemBlock("CERTIFICATE", cert.Raw)}, nil
}

func newCA(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	template := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: fmt.Sprintf("olmv1-service-serving-signer@%d", now.Unix())},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(caLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		SubjectKeyId:          keyID(&key.PublicKey),
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)), nil
}

// servingSubjects are the DNS names of a Service's serving certificate: <svc>.<ns>.svc and
// <svc>.<ns>.svc.<dnsSuffix>, and for a headless Service the same with "*." for its Pods.
func servingSubjects(name, namespace string, headless bool, dnsSuffix string) []string {
	host := name + "." + namespace + ".svc"
	subjects := []string{host, host + "." + dnsSuffix}
	if headless {
		subjects = append(subjects, "*."+host, "*."+host+"."+dnsSuffix)
	}
	return subjects
}

// issue signs a serving certificate for subjects, valid for lifetime. The certificate PEM
// holds the leaf, then the CA.
func (s *signer) issue(subjects []string, lifetime time.Duration, now time.Time) (certPEM, keyPEM []byte, notAfter time.Time, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	template := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: subjects[0]},
		DNSNames:              subjects,
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(lifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		SubjectKeyId:          keyID(&key.PublicKey),
		AuthorityKeyId:        s.cert.SubjectKeyId,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, s.cert, &key.PublicKey, s.key)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	certPEM = append(pemBlock("CERTIFICATE", der), s.certPEM...)
	return certPEM, pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)), template.NotAfter, nil
}

// current says whether certPEM's leaf was issued by this CA for exactly subjects.
func (s *signer) current(certPEM []byte, subjects []string) bool {
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return false
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return false
	}
	if !bytes.Equal(cert.AuthorityKeyId, s.cert.SubjectKeyId) {
		return false
	}
	got, want := slices.Clone(cert.DNSNames), slices.Clone(subjects)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err)
	}
	return n.Add(n, big.NewInt(1))
}

// keyID is the SHA-1 of the public key's PKCS#1 bytes (RFC 5280's method 1, near enough).
func keyID(pub *rsa.PublicKey) []byte {
	sum := sha1.Sum(x509.MarshalPKCS1PublicKey(pub))
	return sum[:]
}

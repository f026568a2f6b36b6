// Command service-ca-stand-in does, for a cluster without OpenShift, what OpenShift's
// service-ca-operator does for the objects OLM v1 renders with its openshift-service-ca
// certificate provider: it keeps a CA, issues a serving certificate into the Secret a Service
// names with service.beta.openshift.io/serving-cert-secret-name (and renews it), and injects
// the CA bundle into ConfigMaps, CRDs, webhook configurations and APIServices annotated with
// service.beta.openshift.io/inject-cabundle=true. It polls the API server every --interval
// instead of watching. It speaks to the API server at KUBERNETES_SERVICE_HOST and _PORT with the
// ServiceAccount credentials in --service-account-dir (a Pod's by default), serves /healthz and /readyz
// on --listen, ready once it holds the CA, and logs what it writes. The standard library only.
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

func main() {
	namespace := flag.String("namespace", "olmv1-service-ca", "namespace of the CA Secret")
	caSecret := flag.String("ca-secret", "signing-key", "name of the CA Secret (type kubernetes.io/tls), created when absent")
	dnsSuffix := flag.String("dns-suffix", "cluster.local", "the cluster's DNS domain, for the certificates' second name")
	interval := flag.Duration("interval", 2*time.Second, "time between two passes over the cluster")
	lifetime := flag.Duration("lifetime", servingCertLifetime, "validity of a serving certificate")
	listen := flag.String("listen", ":8080", "address of /healthz and /readyz")
	credentials := flag.String("service-account-dir", "/var/run/secrets/kubernetes.io/serviceaccount", "directory holding the API server's CA (ca.crt) and a bearer token (token)")
	flag.Parse()

	var ready atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if ready.Load() {
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Error(w, "no CA yet", http.StatusServiceUnavailable)
	})
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving /healthz and /readyz on %s", listener.Addr())
	go func() { log.Fatal(http.Serve(listener, mux)) }()

	kube, err := inClusterClient(*credentials)
	if err != nil {
		log.Fatal(err)
	}
	var ca *signer
	for ca == nil {
		if ca, err = loadOrCreateSigner(kube, *namespace, *caSecret); err != nil {
			log.Printf("the CA: %v", err)
			time.Sleep(*interval)
		}
	}
	log.Printf("signing with %s", ca.cert.Subject.CommonName)
	serving := &servingCerts{kube: kube, ca: ca, dnsSuffix: *dnsSuffix, lifetime: *lifetime}
	inject := &injector{kube: kube, bundle: ca.certPEM}
	ready.Store(true)
	for {
		if err := serving.syncAll(); err != nil {
			log.Print(err)
		}
		if err := inject.syncAll(); err != nil {
			log.Print(err)
		}
		time.Sleep(*interval)
	}
}

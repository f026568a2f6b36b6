// Command example-operator is the controller of the example bundles that `olmv1 up` publishes.
// It does little, but it does it for real: it logs its version at start, answers /healthz and
// /readyz, and, inside a cluster, lists the Greetings of every namespace with its
// ServiceAccount's token, which shows that the RBAC its bundle asks for was granted. It is ready
// once such a list succeeded (or at once outside a cluster).
//
// Standard library only, built static (CGO_ENABLED=0); the version is set at build time:
//
//	go build -trimpath -ldflags "-X main.version=1.0.0" .
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// version is replaced with -ldflags "-X main.version=...".
var version = "dev"

// defaultServiceAccountDir is where the kubelet mounts the ServiceAccount's token and CA.
const defaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

func main() {
	addr := flag.String("listen", ":8080", "address of the /healthz and /readyz endpoints")
	interval := flag.Duration("list-interval", 30*time.Second, "how often the Greetings are listed")
	saDir := flag.String("service-account-dir", defaultServiceAccountDir, "directory holding the ServiceAccount's token and ca.crt")
	printVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *printVersion {
		fmt.Println(version)
		return
	}
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	log.Info("example-operator starting", "version", version, "listen", *addr)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var ready atomic.Bool
	api, err := inClusterAPI(*saDir)
	switch {
	case err == nil:
		go listLoop(ctx, log, api, *interval, &ready)
	case errors.Is(err, errNotInCluster):
		log.Info("not in a cluster: no Greetings to list")
		ready.Store(true)
	default:
		log.Error("reading the in-cluster configuration", "err", err)
		os.Exit(1)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "Greetings not listed yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, version)
	})
	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Error("listening", "err", err)
		os.Exit(1)
	}
	log.Info("serving", "address", listener.Addr().String())
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdown)
	}()
	if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("serving", "err", err)
		os.Exit(1)
	}
	log.Info("example-operator stopped", "version", version)
}

var errNotInCluster = errors.New("not running in a cluster")

// apiClient reaches the API server the way client-go's in-cluster configuration does: the
// service environment variables, the mounted token (read again per request: it is rotated)
// and the mounted CA.
type apiClient struct {
	base   string
	saDir  string
	client *http.Client
}

func inClusterAPI(saDir string) (*apiClient, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errNotInCluster
	}
	ca, err := os.ReadFile(saDir + "/ca.crt")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s/ca.crt holds no certificate", saDir)
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &apiClient{
		base:   "https://" + net.JoinHostPort(host, port),
		saDir:  saDir,
		client: &http.Client{Transport: transport, Timeout: 10 * time.Second},
	}, nil
}

// listGreetings returns the namespace/name of every Greeting in the cluster.
func (a *apiClient) listGreetings(ctx context.Context) ([]string, error) {
	token, err := os.ReadFile(a.saDir + "/token")
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/apis/demo.example.com/v1/greetings", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// The API server's Status says why (a 403 names the user and the missing permission).
		var status struct {
			Message string `json:"message"`
		}
		_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&status)
		return nil, fmt.Errorf("listing greetings: HTTP %d: %s", resp.StatusCode, status.Message)
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		names = append(names, item.Metadata.Namespace+"/"+item.Metadata.Name)
	}
	return names, nil
}

// retryInterval is how soon a failed list is tried again (at most the list interval): the
// first list often comes while the Greetings CRD was just created (the API server answers 429
// while its storage initializes) or its RBAC not yet bound, and should not keep the operator
// unready for a whole list interval.
const retryInterval = 2 * time.Second

func listLoop(ctx context.Context, log *slog.Logger, api *apiClient, interval time.Duration, ready *atomic.Bool) {
	for {
		names, err := api.listGreetings(ctx)
		wait := interval
		if err != nil {
			log.Error("listing Greetings with the ServiceAccount token", "err", err)
			wait = min(interval, retryInterval)
		} else {
			log.Info("listed Greetings with the ServiceAccount token", "count", len(names), "greetings", names)
			ready.Store(true)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// object is a Kubernetes object as JSON: read, changed in place and written back whole, so
// fields this program does not know survive an update.
type object = map[string]any

// kubeClient speaks to the API server at KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT with
// the ServiceAccount credentials in a directory (a Pod's, unless told otherwise).
type kubeClient struct {
	base      string
	http      *http.Client
	tokenFile string
}

// apiError is a response other than 2xx.
type apiError struct {
	code int
	body string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.code, strings.TrimSpace(e.body))
}

func isStatus(err error, code int) bool {
	e, ok := err.(*apiError)
	return ok && e.code == code
}

func inClusterClient(credentials string) (*kubeClient, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT unset")
	}
	caPEM, err := os.ReadFile(filepath.Join(credentials, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("no certificate in %s", filepath.Join(credentials, "ca.crt"))
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &kubeClient{
		base:      "https://" + net.JoinHostPort(host, port),
		http:      &http.Client{Transport: transport, Timeout: 30 * time.Second},
		tokenFile: filepath.Join(credentials, "token"),
	}, nil
}

// do sends body (when not nil) as JSON and decodes the response into out (when not nil).
func (c *kubeClient) do(method, path string, body any, out any) error {
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, reader)
	if err != nil {
		return err
	}
	// The kubelet rotates the projected token: read it for every request.
	token, err := os.ReadFile(c.tokenFile)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &apiError{code: resp.StatusCode, body: string(data)}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

func (c *kubeClient) get(path string) (object, error) {
	var o object
	err := c.do(http.MethodGet, path, nil, &o)
	return o, err
}

func (c *kubeClient) list(path string) ([]object, error) {
	var l struct {
		Items []object `json:"items"`
	}
	if err := c.do(http.MethodGet, path, nil, &l); err != nil {
		return nil, err
	}
	return l.Items, nil
}

func (c *kubeClient) create(path string, o object) error { return c.do(http.MethodPost, path, o, nil) }

// update writes o back with the resourceVersion it was read at: a conflict (409) means someone
// else changed it, and the next round reads it again.
func (c *kubeClient) update(path string, o object) error { return c.do(http.MethodPut, path, o, nil) }

// Small accessors over object.

func field(o object, keys ...string) object {
	for _, k := range keys {
		next, _ := o[k].(map[string]any)
		if next == nil {
			return nil
		}
		o = next
	}
	return o
}

func str(o object, keys ...string) string {
	if len(keys) == 0 {
		return ""
	}
	parent := field(o, keys[:len(keys)-1]...)
	s, _ := parent[keys[len(keys)-1]].(string)
	return s
}

func annotations(o object) map[string]any {
	meta := field(o, "metadata")
	if meta == nil {
		meta = object{}
		o["metadata"] = meta
	}
	a, _ := meta["annotations"].(map[string]any)
	if a == nil {
		a = map[string]any{}
		meta["annotations"] = a
	}
	return a
}

// annotation reads one annotation without changing o.
func annotation(o object, key string) string {
	a, _ := field(o, "metadata")["annotations"].(map[string]any)
	s, _ := a[key].(string)
	return s
}

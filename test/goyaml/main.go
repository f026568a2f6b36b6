// Command goyaml is the Go oracle of the YAML parity test (test/integration/yaml-go-parity.test.ts):
// it decodes inputs with the libraries upstream OLM links (sigs.k8s.io/yaml over
// go.yaml.in/yaml/v2, apimachinery's YAMLOrJSONDecoder) and prints what they produce.
//
// stdin: a JSON array of {"mode": "convert" | "stream", "input": "<base64 bytes>"}.
// stdout: a JSON array, one entry per case, in order:
//   convert: {"json": "<YAMLToJSON output>"} or {"error": "<error text>"}
//   stream:  {"docs": ["<json of each decoded document>", ...], "error": "<error text, if any>"}
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

type request struct {
	Mode  string `json:"mode"`
	Input string `json:"input"`
}

type response struct {
	JSON  *string  `json:"json,omitempty"`
	Docs  []string `json:"docs,omitempty"`
	Error *string  `json:"error,omitempty"`
}

func main() {
	var requests []request
	if err := json.NewDecoder(os.Stdin).Decode(&requests); err != nil {
		fmt.Fprintln(os.Stderr, "goyaml: reading requests:", err)
		os.Exit(2)
	}
	out := make([]response, 0, len(requests))
	for _, r := range requests {
		input, err := base64.StdEncoding.DecodeString(r.Input)
		if err != nil {
			fmt.Fprintln(os.Stderr, "goyaml: bad base64 input:", err)
			os.Exit(2)
		}
		switch r.Mode {
		case "convert":
			out = append(out, convert(input))
		case "stream":
			out = append(out, stream(input))
		default:
			fmt.Fprintln(os.Stderr, "goyaml: unknown mode", r.Mode)
			os.Exit(2)
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "goyaml: writing results:", err)
		os.Exit(2)
	}
}

func text(err error) *string {
	s := err.Error()
	return &s
}

// convert is sigs.k8s.io/yaml's YAML-to-JSON conversion of one document.
func convert(input []byte) (res response) {
	defer func() {
		if p := recover(); p != nil {
			res = response{Error: text(fmt.Errorf("panic: %v", p))}
		}
	}()
	j, err := yaml.YAMLToJSON(input)
	if err != nil {
		return response{Error: text(err)}
	}
	s := string(j)
	return response{JSON: &s}
}

// stream decodes a YAML-or-JSON stream the way upstream reads FBC files and bundle manifests
// (apimachinery's YAMLOrJSONDecoder with a 4096-byte sniff), each document into interface{}.
func stream(input []byte) (res response) {
	defer func() {
		if p := recover(); p != nil {
			res.Error = text(fmt.Errorf("panic: %v", p))
		}
	}()
	res.Docs = []string{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(input), 4096)
	for {
		var v interface{}
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return res
		}
		if err != nil {
			res.Error = text(err)
			return res
		}
		j, err := json.Marshal(v)
		if err != nil {
			res.Error = text(err)
			return res
		}
		res.Docs = append(res.Docs, string(j))
	}
}
